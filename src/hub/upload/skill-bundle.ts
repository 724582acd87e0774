import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type HashedSkillFile, skillDigest, unhashedFolderNames } from '../../repository/skill-digest.js';

/** One skill as a provider receives it: its files (paths relative to the skill folder) and their digest. */
export interface SkillBundle {
  readonly name: string;
  readonly folder: string;
  readonly files: readonly HashedSkillFile[];
  /** skillbox's digest of the files (`skillDigest`, as in `skills-lock.json`): what decides a re-upload. */
  readonly digest: string;
}

/**
 * A file swapped for a link (or a FIFO) after the scan is not followed: the bytes sent are the
 * folder's own, never those of a file elsewhere on the host that the uploader happens to be able to read.
 */
async function readRegularFile(absolute: string, path: string): Promise<Buffer> {
  const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) throw new Error(`${path} is no longer a regular file`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * Reads a skill folder's regular files, as the lock hashes them (`.git` and `node_modules` left
 * out). The scan ran first and refused links and special files, so only regular files remain.
 */
export async function readSkillBundle(name: string, folder: string): Promise<SkillBundle> {
  const files: HashedSkillFile[] = [];
  const walk = async (current: string, prefix: string): Promise<void> => {
    for (const entry of (await readdir(current)).sort()) {
      const absolute = join(current, entry);
      const path = prefix === '' ? entry : `${prefix}/${entry}`;
      const stats = await lstat(absolute);
      if (stats.isDirectory()) {
        if (!unhashedFolderNames.has(entry)) await walk(absolute, path);
      } else if (stats.isFile()) files.push({ path, bytes: await readRegularFile(absolute, path) });
    }
  };
  await walk(folder, '');
  return { name, folder, files, digest: skillDigest(files) };
}
