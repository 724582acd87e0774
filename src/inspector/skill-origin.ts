import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { statSignature } from '../repository/installed-skill-files.js';
import { LockedSkillCheck } from '../repository/locked-skill-check.js';
import { lockEntryOfFolder } from '../repository/skills-cli-folder-name.js';
import { readSkillsLock, type SkillsLock, skillsLockFileFor } from '../repository/skills-lock-file.js';
import type { Skill } from '../repository/types.js';
import type { SkillLockStatus, SkillSource } from './inspector-views.js';

/** A skill's source, read from its `root` (the repositories name it: a folder, a shown URL, `mcp:LABEL`). */
export function sourceOf(skill: Pick<Skill, 'root'>): SkillSource {
  const root = skill.root;
  if (root === undefined) return { kind: 'code', label: 'given in code' };
  if (root.startsWith('mcp:')) return { kind: 'mcp', label: root.slice('mcp:'.length) };
  if (/^https?:\/\//i.test(root)) return { kind: 'url', label: root };
  return { kind: 'folder', label: root };
}

/**
 * The lock status of skills in folders, for the server's life: a folder whose skills folder has no
 * skills-lock.json is not locked and gets none. The comparison is LockedSkillCheck's, the one a
 * `locked` repository runs: it re-reads a lock or a file only when its stat changed, so asking
 * again on every page load reads almost nothing.
 */
export function createLockStatusReader(): (skill: Skill) => Promise<SkillLockStatus | undefined> {
  const check = new LockedSkillCheck();
  // One read of a lock per change of it, not one per skill it governs.
  const locks = new Map<string, { signature: string; lock: Promise<SkillsLock | Error> }>();
  const lockAt = async (file: string): Promise<SkillsLock | Error | undefined> => {
    const stats = await stat(file).catch(() => undefined);
    if (stats === undefined) return undefined;
    const signature = statSignature(stats);
    let known = locks.get(file);
    if (known?.signature !== signature) {
      known = {
        signature,
        lock: readSkillsLock(file).then(
          (lock) => lock ?? new Error(`${file} is gone`),
          (error: Error) => error,
        ),
      };
      locks.set(file, known);
    }
    return known.lock;
  };
  return async (skill) => {
    if (skill.path === undefined || sourceOf(skill).kind !== 'folder') return undefined;
    const lockFile = skillsLockFileFor(dirname(skill.path));
    const lock = await lockAt(lockFile);
    if (lock === undefined) return undefined;
    // A lock that cannot be read governs the folder all the same: said, not hidden.
    if (lock instanceof Error) return { lockFile, matches: false, differences: [lock.message] };
    const found = lockEntryOfFolder(lock, basename(skill.path));
    const refusal = await check.refusal(skill.name, skill.path);
    return {
      lockFile,
      ...(found === undefined ? {} : { entry: found.key, source: found.entry.source }),
      ...(found?.entry.ref === undefined ? {} : { ref: found.entry.ref }),
      matches: refusal === undefined,
      differences: refusal === undefined ? [] : [...refusal.differences],
    };
  };
}
