import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileSha256, skillDigest, skillsCliComputedHash } from '../../repository/skill-digest.js';
import type { LockedFile, SkillsLockEntry } from '../../repository/skills-lock-file.js';
import type { FetchedSkill, ResolvedSource } from '../skill-source.js';
import { withoutUrlCredentials } from '../url-credentials.js';

/**
 * The lock entry for a skill about to be installed: the `skills` CLI's fields as that CLI writes
 * them, and skillbox's pin, per-file hashes and digest under `skillbox`. A local folder is written
 * as the CLI writes it (no `sourceUrl`, no `skillPath`), with the path relative to the lock's folder
 * when it lies inside it, so a committed lock restores on another checkout. Credentials in a URL
 * are never written.
 */
export function lockEntryFor(skill: FetchedSkill, resolved: ResolvedSource, lockFolder: string): SkillsLockEntry {
  const files: Record<string, LockedFile> = {};
  for (const file of [...skill.files].sort((left, right) => (left.path < right.path ? -1 : 1)))
    files[file.path] = {
      sha256: fileSha256(file.bytes),
      size: file.bytes.length,
      ...(file.executable ? { executable: true as const } : {}),
    };
  const local = resolved.sourceType === 'local';
  // A password or token in the URL stays out of the lock, which is committed and shared.
  const source = withoutUrlCredentials(resolved.source);
  const sourceUrl = withoutUrlCredentials(resolved.sourceUrl);
  return {
    source: local ? portableLocalSource(resolved.sourceUrl, lockFolder) : source,
    ...(local || sourceUrl === source ? {} : { sourceUrl }),
    ...(resolved.ref === undefined ? {} : { ref: resolved.ref }),
    sourceType: resolved.sourceType,
    ...(local ? {} : { skillPath: skill.skillPath === '' ? 'SKILL.md' : `${skill.skillPath}/SKILL.md` }),
    computedHash: skillsCliComputedHash(skill.files),
    skillbox: {
      ...(resolved.pinned === undefined ? {} : { pinned: resolved.pinned }),
      digest: skillDigest(skill.files),
      files,
    },
  };
}

function portableLocalSource(folder: string, lockFolder: string): string {
  const inside = relative(lockFolder, folder);
  if (inside === '') return '.';
  if (inside.startsWith('..') || isAbsolute(inside)) return folder;
  return `./${inside.split(sep).join('/')}`;
}

/** The reference to fetch a lock entry again with: a relative local path resolves against the lock's folder. */
export function referenceOf(entry: SkillsLockEntry, lockFolder: string): string {
  if (entry.sourceType === 'local') return isAbsolute(entry.source) ? entry.source : resolve(lockFolder, entry.source);
  return entry.source;
}

/** Whether fetched content is what the entry records: skillbox's digest when present, else the CLI's hash. */
export function matchesEntry(skill: FetchedSkill, entry: SkillsLockEntry): boolean {
  if (entry.skillbox !== undefined && skillDigest(skill.files) !== entry.skillbox.digest) return false;
  return skillsCliComputedHash(skill.files) === entry.computedHash;
}
