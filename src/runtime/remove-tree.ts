import { execFile } from 'node:child_process';
import { lstat, rm } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A folder left behind although its removal was asked for. */
export class TreeRemovalError extends Error {
  constructor(target: string, why: string) {
    super(`cannot remove ${target}: ${why}`);
  }
}

/**
 * Removes a tree a sandboxed process had the run of. Node's `rm` walks by full path, so it fails on a
 * chain of folders deeper than PATH_MAX (ENAMETOOLONG), and as a non-root user on a folder the
 * process made read-only (`chmod 0500`, `chmod 000`: EACCES). When it fails, GNU `chmod -R u+rwX`
 * and `rm -rf` take over: both walk with openat() relative to an open folder, so depth does not
 * matter, and `chmod -R` grants the owner access to each folder before it descends into it. Neither
 * follows links. Spawning two programs costs milliseconds, paid only for such trees; writing an
 * openat-based remover would need a native module. Throws when the tree is still there afterwards.
 */
export async function removeTree(target: string): Promise<void> {
  try {
    await rm(target, { recursive: true, force: true });
    return;
  } catch (error) {
    if (!(await exists(target))) return;
    const first = (error as NodeJS.ErrnoException).code ?? String(error);
    await run('chmod', ['-R', 'u+rwX', '--', target]).catch(() => undefined);
    await run('rm', ['-rf', '--', target]).catch(() => undefined);
    if (await exists(target))
      throw new TreeRemovalError(target, `${first}, and chmod -R / rm -rf could not remove it either`);
  }
}

async function exists(target: string): Promise<boolean> {
  return lstat(target).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
  );
}
