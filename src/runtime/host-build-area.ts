import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Name of the folder, beside the workspace folders, where the host builds what it is about to place
 * in a workspace (a skill copy, an input) and puts what it takes out before removing it. It is
 * outside every workspace, so no sandboxed process sees it; it is on the same filesystem, so a
 * single rename moves a finished build in (or a replaced folder out).
 */
export const hostBuildFolderName = '.host-build';

/**
 * A fresh path (not created) in the build area of the workspace at `root`. The sandboxed process can
 * change anything under `root` while the host writes, and Node cannot write relative to an open
 * folder; building here means a whole tree is written where nobody else can reach, and only the
 * final rename touches the workspace (through an anchored folder, see anchored-folder.ts).
 */
export async function newBuildPath(root: string): Promise<string> {
  const area = path.join(path.dirname(root), hostBuildFolderName);
  // One mkdir system call (EEXIST after the first), made directly: see anchored-folder.ts.
  mkdirSync(area, { recursive: true, mode: 0o700 });
  return path.join(area, `${path.basename(root)}-${randomBytes(8).toString('hex')}`);
}
