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

  /** Throws the LockedSkillError of `refusal` when there is one. */
  async check(name: string, folder: string): Promise<void> {
    const refused = await this.refusal(name, folder);
    if (refused !== undefined) throw refused;
  }

  /**
   * Why `folder` may not be handed out: a LockedSkillError listing its differences from the lock (or
   * the missing lock or entry), or undefined when it matches. Returned, not thrown, so a listing can
   * leave one skill out and go on with the others.
   */
  async refusal(name: string, folder: string): Promise<LockedSkillError | undefined> {
    const lockFile = skillsLockFileFor(dirname(folder));
    const lock = await this.#lock(lockFile);
    if (lock === undefined)
      return new LockedSkillError(name, folder, [`no ${lockFile} records the skills of ${dirname(folder)}`]);
    // The skills CLI keys an entry by the skill's name ("PDF Tools") and installs it into the
    // sanitised folder (`pdf-tools`); the folder's own name is tried first.
    const entry = lockEntryOfFolder(lock, basename(folder))?.entry;
    if (entry === undefined)
      return new LockedSkillError(name, folder, [
        `${lockFile} has no entry "${basename(folder)}" (nor one the skills CLI installs into that folder)`,
      ]);
    const differences = await compareInstalledSkill(folder, entry, this.#verified);
    return differences.length > 0 ? new LockedSkillError(name, folder, differences) : undefined;
  }
}
