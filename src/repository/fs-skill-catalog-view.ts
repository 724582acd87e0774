import type { DeferredSkillParse } from '../format/parse-skill.js';
import type { SkillFileToRead } from './read-skill-files.js';
import type { FoundSkillFolder } from './scan-skill-root.js';
import type { LockedSkillError } from './skills-lock-errors.js';
import type { ShadowedSkill, SkillSummary, SkippedSkill } from './types.js';

// What FsSkillRepository builds from a scan: the folders found, what each SKILL.md gave, and the
// catalog view (the winner of each name) that list(), get() and watch() read.

export interface IndexedFolder extends FoundSkillFolder {
  root: string;
  /** How its SKILL.md is read: a link is followed only into the roots of the scan that found it. */
  toRead: SkillFileToRead;
}

export type LoadOutcome = { parsed: DeferredSkillParse } | { reason: string };

export interface CacheEntry {
  signature: string;
  outcome: LoadOutcome;
}

export interface LoadedSkill {
  indexed: IndexedFolder;
  parsed: DeferredSkillParse;
  signature: string;
  summary: SkillSummary;
}

export interface ScanIndex {
  roots: string[];
  folders: IndexedFolder[];
  skipped: SkippedSkill[];
  warnings: string[];
  problems: string[];
}

export interface CatalogView {
  /** The scan and the loads (cache entries) the view was built from: unchanged ones give the same view. */
  index: ScanIndex;
  loads: readonly (CacheEntry | undefined)[];
  winners: Map<string, LoadedSkill>;
  /** Skills of a locked repository left out because they do not match the lock, by name. */
  lockRefusals: Map<string, LockedSkillError>;
  summaries: SkillSummary[];
  skipped: SkippedSkill[];
  shadowed: ShadowedSkill[];
}

/** Whether two views were built from the same loads (the same cache entries, in order). */
export function sameEntries(
  left: readonly (CacheEntry | undefined)[],
  right: readonly (CacheEntry | undefined)[],
): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) if (left[index] !== right[index]) return false;
  return true;
}

/** Whether two catalogs show the same: name, description, path, root and visibility of each skill, in order. */
export function sameSummaries(left: readonly SkillSummary[], right: readonly SkillSummary[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) {
    const a = left[index]!;
    const b = right[index]!;
    if (
      a.name !== b.name ||
      a.description !== b.description ||
      a.path !== b.path ||
      a.root !== b.root ||
      a.modelInvocable !== b.modelInvocable
    )
      return false;
  }
  return true;
}
