import type { DeferredSkillParse } from '../format/parse-skill-deferring-body.js';
import { compareNames } from './compare-names.js';
import type { LockedSkillCheck } from './locked-skill-check.js';
import { mapWithConcurrency } from './map-with-concurrency.js';
import type { SkillFileToRead } from './read-skill-files.js';
import type { FoundSkillFolder } from './scan-skill-root.js';
import { type LockedSkillError, lockMismatchReason } from './skills-lock-errors.js';
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

/** A skill folder of the catalog as read: where it is, its parse (body deferred), its signature and summary. */
export interface ParsedSkillFolder {
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
  winners: Map<string, ParsedSkillFolder>;
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

/** Skill folders compared with their lock at once when a locked repository builds its catalog. */
const lockCheckConcurrency = 16;

/**
 * The catalog of a scan and what each of its SKILL.md files gave (`loads`, by folder, undefined for
 * one gone since the scan): the first skill of a name wins, later ones are shadowed, unreadable ones
 * skipped with their reason; with `lockCheck`, skills that do not match the lock are left out too.
 */
export async function buildCatalogView(
  index: ScanIndex,
  loads: readonly (CacheEntry | undefined)[],
  lockCheck: LockedSkillCheck | undefined,
): Promise<CatalogView> {
  const view: CatalogView = {
    index,
    loads,
    winners: new Map(),
    lockRefusals: new Map(),
    summaries: [],
    skipped: [...index.skipped],
    shadowed: [],
  };
  index.folders.forEach((indexed, position) => {
    const load = loads[position];
    if (load === undefined) return;
    if ('reason' in load.outcome) {
      view.skipped.push({ path: indexed.file, reason: load.outcome.reason });
      return;
    }
    const { parsed } = load.outcome;
    const winner = view.winners.get(parsed.name);
    if (winner) {
      view.shadowed.push({ name: parsed.name, path: indexed.folder, winner: winner.indexed.folder });
      return;
    }
    // Built field by field: a spread in the literal takes a slow path, 10,000 times in a large library.
    const summary: SkillSummary = {
      name: parsed.name,
      description: parsed.description,
      path: indexed.folder,
      root: indexed.root,
    };
    if (parsed.modelInvocable === false) summary.modelInvocable = false;
    view.winners.set(parsed.name, { indexed, parsed, signature: load.signature, summary });
  });
  if (lockCheck !== undefined) await leaveOutUnlocked(view, lockCheck);
  view.summaries = [...view.winners.values()]
    .map((loaded) => loaded.summary)
    .sort((left, right) => compareNames(left.name, right.name));
  return view;
}

/**
 * A locked repository leaves out of its catalog every skill that does not match its lock: listed
 * under `skipped` with the differences, so one edited skill costs the host that skill, not all of
 * them. Its name stays taken (a lower-priority skill of the same name does not step in), and
 * `get` answers it with the LockedSkillError.
 */
async function leaveOutUnlocked(view: CatalogView, lockCheck: LockedSkillCheck): Promise<void> {
  const winners = [...view.winners.values()];
  const refusals = await mapWithConcurrency(winners, lockCheckConcurrency, (loaded) =>
    lockCheck.refusal(loaded.parsed.name, loaded.indexed.folder),
  );
  refusals.forEach((refusal, position) => {
    if (refusal === undefined) return;
    const { parsed, indexed } = winners[position]!;
    view.winners.delete(parsed.name);
    view.lockRefusals.set(parsed.name, refusal);
    view.skipped.push({ path: indexed.folder, reason: lockMismatchReason(refusal.differences) });
  });
}
