import { readFile } from 'node:fs/promises';
import { openFileInside } from '../runtime/anchored-folder.js';
import type { FileContent, PlacedTree, TreeEntry, WorkspaceFiles } from '../runtime/workspace-files.js';
import type { WorkerCaller } from './worker-call.js';

/**
 * `WorkspaceFiles` of a workspace on a sandbox worker: every call is forwarded to it as is, but
 * for host files, which are read here, by the host, and sent as bytes (the worker cannot see them).
 */
export function remoteWorkspaceFiles(call: WorkerCaller['call'], workspaceRoot: string): WorkspaceFiles {
  const forward =
    (operation: string) =>
    (...params: unknown[]): Promise<never> =>
      call('files', { workspace: workspaceRoot, operation, params }) as Promise<never>;
  return {
    ensureFolders: forward('ensureFolders'),
    makeFolder: forward('makeFolder'),
    inspect: async (target) => ((await forward('inspect')(target)) ?? undefined) as never,
    resolve: async (paths) =>
      ((await forward('resolve')(paths)) as unknown[]).map((item) => item ?? undefined) as never,
    list: forward('list'),
    read: forward('read'),
    put: async (target, tree, putOptions) => forward('put')(target, await withBytes(tree), putOptions ?? {}),
    copy: forward('copy'),
    remove: forward('remove'),
    measure: forward('measure'),
  };
}

async function withBytes(tree: PlacedTree): Promise<PlacedTree> {
  if (tree.kind === 'file') return { ...tree, content: await bytesOf(tree.content) };
  if (tree.kind === 'link') return tree;
  const entries: TreeEntry[] = [];
  for (const entry of tree.entries)
    entries.push(entry.kind === 'file' ? { ...entry, content: await bytesOf(entry.content) } : entry);
  return { ...tree, entries };
}

/** A host file's bytes, read with the same check a host runtime makes (`within`: opened, then checked). */
async function bytesOf(content: FileContent): Promise<FileContent> {
  if ('data' in content) return content;
  if (content.within === undefined) return { data: await readFile(content.hostFile) };
  const handle = await openFileInside(content.within, content.hostFile);
  try {
    return { data: await handle.readFile() };
  } finally {
    await handle.close();
  }
}
