import { constants, existsSync } from 'node:fs';
import { type FileHandle, lstat, open, readdir, readlink, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { type HashedSkillFile, skillDigest, unhashedFolderNames } from '../../repository/skill-digest.js';
import { SkillUploadRefusedError } from './upload-errors.js';

/** One skill as a provider receives it: its files (paths relative to the skill folder) and their digest. */
export interface SkillBundle {
  readonly name: string;
  readonly folder: string;
  readonly files: readonly HashedSkillFile[];
  /** skillbox's digest of the files (`skillDigest`, as in `skills-lock.json`): what decides a re-upload. */
  readonly digest: string;
}

const procFdAvailable = existsSync('/proc/self/fd');

/**
 * Opens what `relative` names below the skill's real path and keeps it only when the descriptor is
 * that very path: a file or a folder swapped for a link after the scan (anywhere along the path)
 * opens something else, which refuses the upload instead of sending a host file the uploader can
 * read. The kernel's answer (`/proc/self/fd`) is compared; without /proc, the real path now. The
 * worker's snapshot writer (worker/custody/snapshot-tar-writer.ts) guards its walk the same way.
 */
async function openExactly(skill: string, root: string, relative: string, flags: number): Promise<FileHandle> {
  const expected = relative === '' ? root : join(root, relative);
  const changed = (why: string) =>
    new SkillUploadRefusedError(
      `skill "${skill}": ${relative === '' ? 'its folder' : relative} changed while it was read (${why}); nothing was uploaded`,
    );
  let handle: FileHandle;
  try {
    handle = await open(expected, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw changed((error as Error).message);
  }
  try {
    const opened = procFdAvailable ? await readlink(`/proc/self/fd/${handle.fd}`) : await realpath(expected);
    if (opened !== expected) throw changed(`it now opens ${JSON.stringify(opened)}`);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Reads a skill folder's regular files, as the lock hashes them (`.git` and `node_modules` left
 * out). The scan ran first and refused links and special files; each folder and file is opened
 * again here without following anything, so what the scan judged is what is sent.
 */
export async function readSkillBundle(name: string, folder: string): Promise<SkillBundle> {
  const root = await realpath(folder);
  const files: HashedSkillFile[] = [];
  const visit = async (relative: string): Promise<void> => {
    const directory = await openExactly(name, root, relative, constants.O_RDONLY | constants.O_DIRECTORY);
    let entries: string[];
    try {
      entries = (await readdir(procFdAvailable ? `/proc/self/fd/${directory.fd}` : join(root, relative))).sort();
    } finally {
      await directory.close();
    }
    for (const entry of entries) {
      const path = relative === '' ? entry : `${relative}/${entry}`;
      const stats = await lstat(join(root, path));
      if (stats.isDirectory()) {
        if (!unhashedFolderNames.has(entry)) await visit(path);
      } else if (stats.isFile()) {
        const file = await openExactly(name, root, path, constants.O_RDONLY);
        try {
          if (!(await file.stat()).isFile())
            throw new SkillUploadRefusedError(
              `skill "${name}": ${path} is no longer a regular file; nothing was uploaded`,
            );
          files.push({ path, bytes: await file.readFile() });
        } finally {
          await file.close();
        }
      } else {
        // The scan refused links and special files: one here now appeared after it.
        throw new SkillUploadRefusedError(
          `skill "${name}": ${path} became a link or a special file after the scan; nothing was uploaded`,
        );
      }
    }
  };
  await visit('');
  return { name, folder, files, digest: skillDigest(files) };
}
