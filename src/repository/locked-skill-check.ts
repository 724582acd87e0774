import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { compareInstalledSkill, type VerifiedSignatures } from './compare-installed-skill.js';
import { statSignature } from './installed-skill-files.js';
import { lockEntryOfFolder } from './skills-cli-folder-name.js';
import { LockedSkillError } from './skills-lock-errors.js';
import { readSkillsLock, type SkillsLock, skillsLockFileFor } from './skills-lock-file.js';

/**
 * The check a repository with the `locked` option runs before it hands out a skill: the skill's
 * folder must have an entry in the lock of the folder it is installed in (`skillsLockFileFor`) and
 * match it. Cheap when nothing changed: the lock is re-read only when its own stat changes, and a
 * file found equal is re-read only when its size, times or inode change.
 */
export class LockedSkillCheck {
  readonly #locks = new Map<string, { signature: string; lock: SkillsLock | undefined }>();
  readonly #verified: VerifiedSignatures = new Map();

  async #lock(file: string): Promise<SkillsLock | undefined> {
    let signature: string;
    try {
      signature = statSignature(await stat(file));
    } catch {
      this.#locks.delete(file);
      return undefined;
    }
    const cached = this.#locks.get(file);
    if (cached?.signature === signature) return cached.lock;
    const lock = await readSkillsLock(file);
    this.#locks.set(file, { signature, lock });
    return lock;
  }

  /** Throws LockedSkillError listing the differences (or the missing lock or entry) of `folder`. */
  async check(name: string, folder: string): Promise<void> {
    const lockFile = skillsLockFileFor(dirname(folder));
    const lock = await this.#lock(lockFile);
    if (lock === undefined)
      throw new LockedSkillError(name, [`no ${lockFile} records the skills of ${dirname(folder)}`]);
    // The skills CLI keys an entry by the skill's name ("PDF Tools") and installs it into the
    // sanitised folder (`pdf-tools`); the folder's own name is tried first.
    const entry = lockEntryOfFolder(lock, basename(folder))?.entry;
    if (entry === undefined)
      throw new LockedSkillError(name, [
        `${lockFile} has no entry "${basename(folder)}" (nor one the skills CLI installs into that folder)`,
      ]);
    const differences = await compareInstalledSkill(folder, entry, this.#verified);
    if (differences.length > 0)
      throw new LockedSkillError(
        name,
        differences.map((difference) => `${folder}/${difference}`),
      );
  }
}
