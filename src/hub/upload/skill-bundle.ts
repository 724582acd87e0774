import { constants } from 'node:fs';
import { lstat, readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { openExactly, pathThroughHandle } from '../../repository/open-exactly.js';
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

/**
 * Opens a folder or file of the skill only when it is still the very path the scan judged
 * (openExactly): one swapped for a link since opens something else, which refuses the upload
 * instead of sending a host file the uploader can read.
 */
function openUnchanged(skill: string, root: string, relative: string, flags: number) {
  return openExactly(
    root,
    relative,
    flags,
    (cause) =>
      new SkillUploadRefusedError(
        `skill "${skill}": ${relative === '' ? 'its folder' : relative} changed while it was read (${typeof cause === 'string' ? cause : cause.message}); nothing was uploaded`,
      ),
  );
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
    const directory = await openUnchanged(name, root, relative, constants.O_RDONLY | constants.O_DIRECTORY);
    let entries: string[];
    try {
      entries = (await readdir(pathThroughHandle(directory, join(root, relative)))).sort();
    } finally {
      await directory.close();
    }
    for (const entry of entries) {
      const path = relative === '' ? entry : `${relative}/${entry}`;
      const stats = await lstat(join(root, path));
      if (stats.isDirectory()) {
        if (!unhashedFolderNames.has(entry)) await visit(path);
      } else if (stats.isFile()) {
        const file = await openUnchanged(name, root, path, constants.O_RDONLY);
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
