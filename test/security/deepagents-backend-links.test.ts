import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { createWorkspaceManager, type WorkspaceManager } from '../../src/workspace/workspace-manager.js';

// A model driving deepagents' tools through skillbox's backend: its sandboxed command plants links
// in the workspace, then asks the file tools (which run on the host, through files()) to write or
// read through them, to reach the host outside the workspace.
const present = (await import('deepagents').catch(() => undefined)) !== undefined;
const { createSandboxBackend } = present
  ? await import('../../src/integrations/langchain/index.js')
  : ({} as typeof import('../../src/integrations/langchain/index.js'));

const examples = fileURLToPath(new URL('../../examples/skills/', import.meta.url));
let scratch: string;
let hostFolder: string;
let workspaces: WorkspaceManager;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-deepagents-links-'));
  hostFolder = join(scratch, 'host');
  await mkdir(hostFolder);
  await writeFile(join(hostFolder, 'secret.txt'), 'host secret\n');
  const repository = await FsSkillRepository.open({ roots: [examples] });
  workspaces = createWorkspaceManager({
    runtime: createRuntime({ kind: 'sandbox' }),
    repository,
    baseDir: join(scratch, 'workspaces'),
  });
});
afterAll(async () => {
  await workspaces.close();
  await rm(scratch, { recursive: true, force: true });
});

describe.skipIf(!present)('deepagents backend: links planted by a sandboxed command', () => {
  it('write_file through a planted folder link does not write on the host', async () => {
    const workspace = await workspaces.workspace({ sessionId: 'write-through-link' });
    const backend = await createSandboxBackend({ workspace });
    const planted = await backend.execute(`ln -s ${hostFolder} /workspace/work/escape && echo planted`);
    expect(planted.output).toContain('planted');
    const results = await backend.uploadFiles?.([
      ['/workspace/work/escape/dropped.txt', new TextEncoder().encode('written by the model\n')],
    ]);
    expect(results?.[0]?.error).not.toBeNull();
    expect(await readdir(hostFolder)).toEqual(['secret.txt']);
  });

  it('write_file onto a planted file link replaces the link, never the host file it points to', async () => {
    const workspace = await workspaces.workspace({ sessionId: 'write-onto-link' });
    const backend = await createSandboxBackend({ workspace });
    // The link's target is a host path: in the sandbox it dangles, on the host it would not.
    await backend.execute(`ln -s ${join(hostFolder, 'secret.txt')} /workspace/work/notes.txt`);
    const edited = await backend.write('/workspace/work/notes.txt', 'overwritten\n');
    expect(edited.error).toBeUndefined();
    expect(await readFile(join(hostFolder, 'secret.txt'), 'utf8')).toBe('host secret\n');
    expect(await readFile(join(workspace.root, 'work', 'notes.txt'), 'utf8')).toBe('overwritten\n');
  });

  it('read_file through a planted link does not return the host file', async () => {
    const workspace = await workspaces.workspace({ sessionId: 'read-through-link' });
    const backend = await createSandboxBackend({ workspace });
    await backend.execute(`ln -s ${join(hostFolder, 'secret.txt')} /workspace/work/leak.bin`);
    await backend.execute(`ln -s ${hostFolder} /workspace/work/dir`);
    const [direct, viaFolder] =
      (await backend.downloadFiles?.(['/workspace/work/leak.bin', '/workspace/work/dir/secret.txt'])) ?? [];
    expect(direct?.content).toBeNull();
    expect(viaFolder?.content).toBeNull();
    const raw = await backend.readRaw('/workspace/work/leak.bin');
    expect(JSON.stringify(raw)).not.toContain('host secret');
  });
});
