import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { SkillboxError } from '../errors.js';
import { SkillFileNotFoundError, SkillFileReadError, SkillPathError } from './errors.js';
import { openedFilePath } from './opened-file-path.js';

/** Default `maxReadableFileBytes`: far above any doc a model should read whole, far below a memory problem. */
export const defaultMaxReadableFileBytes = 32 * 1024 * 1024;

/**
 * Turns a failed file-system call on a bundled file into the error that says what is wrong. Only a
 * path that is not there (ENOENT, or ENOTDIR when a segment is a file) is "not found": every other
 * failure names the file as unreadable, so nobody is told to go and look for a file that exists.
 */
export function bundledFileError(skill: string, path: string, error: unknown): Error {
  if (error instanceof SkillboxError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new SkillFileNotFoundError(skill, path);
    case 'ELOOP':
      return new SkillPathError(skill, path, 'the path goes through a link loop');
    case 'EACCES':
    case 'EPERM':
      return new SkillFileReadError(skill, path, 'permission', `permission denied (${code})`, { cause: error });
    case 'EISDIR':
      return new SkillFileReadError(skill, path, 'folder', 'it is a folder, not a file', { cause: error });
    case 'ERR_FS_FILE_TOO_LARGE':
      return new SkillFileReadError(
        skill,
        path,
        'too-large',
        'the file is too large to read into memory (over 2 GiB)',
        { cause: error },
      );
    default:
      return new SkillFileReadError(
        skill,
        path,
        'io',
        code ?? (error instanceof Error ? error.message : String(error)),
        { cause: error },
      );
  }
}

/**
 * Reads one bundled file by its resolved real path, refusing anything that is not a regular file
 * or is over `maxBytes`. The size is checked on the open handle before reading, so a 3 GB file
 * costs a stat, not an allocation; O_NONBLOCK keeps a named pipe from blocking the open.
 *
 * The caller checked `realPath` (inside the skill folder, not a refused name), but the kernel
 * resolves it again at the open: a folder on it swapped for a link since then would lead the read
 * to a host file (test/security/repository-skill-file-swap.test.ts served the host file 325 times
 * in 1,500 reads). So the last name is opened without following a link, and the file opened must
 * be the one checked: its descriptor's path under `/proc` must be `realPath`. Without `/proc`
 * (not Linux) the open follows the path as resolved, which a swap can still race.
 */
export async function readBundledFile(
  skill: string,
  path: string,
  realPath: string,
  maxBytes: number,
): Promise<Buffer> {
  let handle: FileHandle;
  try {
    handle = await open(realPath, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new SkillPathError(skill, path, 'it became a link while it was read');
    throw bundledFileError(skill, path, error);
  }
  try {
    const opened = openedFilePath(handle.fd);
    if (opened !== undefined && opened !== realPath)
      throw new SkillPathError(skill, path, 'a folder on its path was swapped for a link while it was read');
    const stats = await handle.stat();
    if (stats.isDirectory()) throw new SkillFileReadError(skill, path, 'folder', 'it is a folder, not a file');
    if (!stats.isFile())
      throw new SkillFileReadError(skill, path, 'not-a-file', 'it is not a regular file (a device, pipe or socket)');
    const tooLarge = (size: number): SkillFileReadError =>
      new SkillFileReadError(
        skill,
        path,
        'too-large',
        `the file is ${size} bytes, over the ${maxBytes}-byte limit (maxReadableFileBytes)`,
        {
          size,
          limit: maxBytes,
        },
      );
    if (stats.size > maxBytes) throw tooLarge(stats.size);
    const bytes = await handle.readFile();
    // The file may have grown between the stat and the read.
    if (bytes.length > maxBytes) throw tooLarge(bytes.length);
    return bytes;
  } catch (error) {
    throw bundledFileError(skill, path, error);
  } finally {
    await handle.close();
  }
}
