import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import type { Workspace } from '../../workspace/workspace.js';
import { workspaceFolders } from '../../workspace/workspace-paths.js';

/** Largest host file `/attach` copies: it is read into memory once and placed through the runtime. */
export const maxAttachBytes = 50 * 1024 * 1024;

/** A file the user attached: where it came from and where commands find it. */
export interface AttachedFile {
  /** Absolute host path as the user named it (resolved against the chat's folder). */
  hostPath: string;
  /** Workspace-relative destination: `work/inputs/<name>`. */
  workspacePath: string;
  sizeBytes: number;
}

/** Why `/attach` refused: one sentence naming the path or name at fault. */
export class AttachError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AttachError';
  }
}

/**
 * The name a file gets under `work/inputs/`: plain path segments only. The user typed it, but
 * checked all the same: a name that climbs (`..`), is absolute, or hides a separator would put the
 * file elsewhere in the workspace than the user was told.
 */
export function attachName(name: string): string {
  if (name.includes('\0')) throw new AttachError(`the name "${name}" contains a NUL byte`);
  if (name.includes('\\')) throw new AttachError(`the name "${name}" contains a backslash; separate folders with /`);
  if (name.startsWith('/')) throw new AttachError(`the name "${name}" is absolute; give a name inside work/inputs/`);
  const segments = name.split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..')
      throw new AttachError(
        `the name "${name}" has an empty, "." or ".." part; it must stay inside work/inputs/ (e.g. data/report.csv)`,
      );
  }
  return segments.join('/');
}

/** `~` and `~/...` are the home folder, as a shell would read them; anything else is relative to `cwd`. */
export function resolveHostPath(typed: string, cwd: string, home: string | undefined): string {
  if (home !== undefined && (typed === '~' || typed.startsWith('~/'))) return path.join(home, typed.slice(1));
  return path.resolve(cwd, typed);
}

/**
 * Copies one host file into the workspace's input area (`work/inputs/NAME`) through the runtime's
 * `files()` contract, so it works the same for a runtime whose workspace is not on this host. The
 * file is opened once (non-blocking, so a FIFO cannot hang the chat) and checked on that open
 * handle: what is read is what was checked, even if the path is swapped meanwhile.
 */
export async function attachHostFile(options: {
  workspace: Workspace;
  hostPath: string;
  /** Name under `work/inputs/`; default the host file's base name. */
  name?: string;
  maxBytes?: number;
}): Promise<AttachedFile> {
  const { workspace, hostPath } = options;
  const maxBytes = options.maxBytes ?? maxAttachBytes;
  const name = attachName(options.name ?? path.basename(hostPath));
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(hostPath, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new AttachError(
      code === 'ENOENT'
        ? `${hostPath}: no such file`
        : code === 'EACCES'
          ? `${hostPath}: permission denied`
          : `${hostPath}: cannot open it (${(error as Error).message})`,
    );
  }
  let data: Buffer;
  try {
    const stats = await handle.stat();
    if (stats.isDirectory())
      throw new AttachError(`${hostPath} is a folder; attach its files one by one (or an archive of it)`);
    if (!stats.isFile()) throw new AttachError(`${hostPath} is not a regular file (a device, socket or pipe)`);
    if (stats.size > maxBytes)
      throw new AttachError(`${hostPath} is ${stats.size} bytes; /attach takes files up to ${maxBytes} bytes`);
    // Read one byte past the limit: a file that grew after the check is refused, not cut.
    const buffer = Buffer.alloc(Math.min(stats.size, maxBytes) + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buffer.length) break;
    }
    if (filled > maxBytes || filled > stats.size)
      throw new AttachError(`${hostPath} grew while it was read; /attach takes files up to ${maxBytes} bytes`);
    data = buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
  const workspacePath = `${workspaceFolders.inputs}/${name}`;
  // Holding the workspace's turn: no command of this session runs while the file is placed.
  await workspace.exclusive(() => workspace.files.put(workspacePath, { kind: 'file', mode: 0o644, content: { data } }));
  return { hostPath, workspacePath, sizeBytes: data.length };
}
