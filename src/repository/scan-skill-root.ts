import type { Dirent } from 'node:fs';
import { lstatSync, readdirSync } from 'node:fs';
import { basename, join, sep } from 'node:path';
import { SKILL_FILE_NAMES } from '../format/find-skill-markdown.js';
import { isSkippedFolderName } from './bundled-file-rule.js';
import { compareNames } from './compare-names.js';
import { isWithin, type LinkTarget, resolveLink } from './resolve-link.js';
import type { SkippedSkill } from './types.js';

export interface ScanBounds {
  /** Folder levels below the root that are read; deeper folders are reported, not scanned. */
  maxDepth: number;
  /** Directory entries read per root before the scan stops with a warning (a probed skill folder counts as one). */
  maxEntries: number;
  /** Look for skills inside skill folders too (nested discovery); by default a skill owns its subtree. */
  nested?: boolean;
  /**
   * Real paths of the repository's other roots. A link out of this root into one of them is
   * followed: it is how the `skills` CLI installs a skill for several agents (`.claude/skills/x` ->
   * `../../.agents/skills/x`), and the folder is scanned under those roots anyway, so following it
   * reaches nothing new. The repository keeps the skill once, by its real folder.
   */
  siblingRoots?: readonly string[];
}

/** A folder that holds a SKILL.md (or skill.md) that is a regular file. */
export interface FoundSkillFolder {
  /** Absolute folder path: the resolved root joined with the path inside it (links kept as named). */
  folder: string;
  /** Absolute path of the SKILL.md inside `folder`. */
  file: string;
  /**
   * The SKILL.md was a link (to a file inside the roots) at the scan. A reader follows it only
   * after checking where it leads; a SKILL.md that was a regular file is read without following a
   * link, so one swapped for a link after the scan is refused rather than followed out of the root.
   */
  linked: boolean;
  /** `/`-separated path of the folder relative to the root ('' when the root itself is the skill). */
  relativeFolder: string;
  /** The folder's real location (links resolved): the same skill reached from two roots has one. */
  realFolder: string;
  /** The folder's own name (the last part of `folder`), which a SKILL.md without a name falls back on. */
  folderName: string;
}

/** A skill folder whose SKILL.md cannot be read, with the folder's real location. */
export interface SkippedSkillFolder extends SkippedSkill {
  realFolder: string;
}

export interface RootScan {
  found: FoundSkillFolder[];
  /** Skill folders whose SKILL.md is not something that can be read (a folder, a dangling link, ...). */
  skipped: SkippedSkillFolder[];
  warnings: string[];
}

interface PendingFolder {
  path: string;
  /** The folder's real location, used to notice a link that leads back to a folder already scanned. */
  realPath: string;
  relative: string;
  /** The last part of `path`: the entry's name, or the root's folder name. */
  name: string;
  depth: number;
}

/** Sibling folders read between two turns of the event loop (about a millisecond of blocking). */
const readBatchSize = 64;

/** Sorted by path segments (`a/b` before `a-b`); each key is made once, not at every comparison. */
function sortedByRelativePath(found: FoundSkillFolder[]): FoundSkillFolder[] {
  // Skills directly under the root (the usual library): the paths are their own keys.
  if (!found.some((folder) => folder.relativeFolder.includes('/')))
    return found.sort((left, right) => compareNames(left.relativeFolder, right.relativeFolder));
  const keyed = found.map((folder) => ({ key: folder.relativeFolder.replaceAll('/', '\0'), folder }));
  keyed.sort((left, right) => compareNames(left.key, right.key));
  return keyed.map(({ folder }) => folder);
}

/** The folder's skill file, by the preference order of SKILL_FILE_NAMES. */
function firstSkillFile(listing: Dirent[]): Dirent | undefined {
  for (const name of SKILL_FILE_NAMES) {
    const entry = listing.find((candidate) => candidate.name === name);
    if (entry) return entry;
  }
  return undefined;
}

/**
 * One folder's entries, in the order the file system gives them: only a folder the scan descends
 * into needs them sorted (`sortedEntries`), and most folders read are skill folders, which it does
 * not descend into. Synchronous on purpose, a batch of `readBatchSize` folders between
 * two turns of the event loop: a promise readdir is a round trip through libuv's thread pool per
 * folder, which cost more than the reading itself in a tree of small skill folders (see
 * read-skill-files.ts for the same choice for SKILL.md files).
 */
function readEntries(path: string): Dirent[] | NodeJS.ErrnoException {
  try {
    return readdirSync(path, { withFileTypes: true });
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
}

/**
 * Whether a folder below the root holds a regular file named SKILL.md, asked with one `lstat`
 * instead of reading the folder: in a library, nearly every folder the scan reaches is a skill
 * folder, and reading each one's entries was a third of a cold listing's system time. `lstat` sees
 * what the folder's entry says (a link is not followed), so a regular file here is what `firstSkillFile`
 * would have found; anything else (no such file, a link, a folder, an error) is left to reading the
 * folder, which judges it as before. Not on macOS and Windows, whose usual disks ignore case: there
 * `SKILL.md` would also name a `Skill.md`, which reading the folder does not take for a skill.
 */
const probeSkillFiles = process.platform !== 'darwin' && process.platform !== 'win32';

function holdsSkillFile(path: string): boolean {
  try {
    return lstatSync(`${path}${sep}SKILL.md`, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

function sortedEntries(listing: Dirent[]): Dirent[] {
  return listing.sort((left, right) => compareNames(left.name, right.name));
}

/**
 * `join(folder, name)` for a name read from the folder: such a name holds no separator and is never
 * `.` or `..`, and the folder is already normalized, so there is nothing for `join` to normalize; it
 * was most of the walk's own time (a thousand calls and more on a cold listing, before V8 compiles
 * them).
 */
function childPath(folder: string, name: string): string {
  return folder.endsWith(sep) ? `${folder}${name}` : `${folder}${sep}${name}`;
}

/**
 * Finds the skill folders under one root (given as its real path). A folder holding `SKILL.md` or
 * `skill.md` is a skill and owns everything below it, so the scan does not descend into it, unless
 * `nested` asks for the skills inside skills as well. The
 * scan goes level by level, reading each level's folders in parallel but deciding in sorted order,
 * so the result (and which folders a bound cuts off) is the same on every run.
 */
export async function scanSkillRoot(root: string, bounds: ScanBounds): Promise<RootScan> {
  const found: FoundSkillFolder[] = [];
  const skipped: SkippedSkillFolder[] = [];
  const warnings: string[] = [];
  const visited = new Set<string>([root]);
  const first: PendingFolder[] = [{ path: root, realPath: root, relative: '', name: basename(root), depth: 0 }];
  let level = first;
  let entriesRead = 0;
  let tooDeep = 0;
  let firstTooDeep: string | undefined;

  scan: while (level.length > 0) {
    const next: PendingFolder[] = [];
    for (let start = 0; start < level.length; start += readBatchSize) {
      const batch = level.slice(start, start + readBatchSize);
      if (start > 0 || level !== first) await new Promise<void>((resolve) => setImmediate(resolve));
      // A skill folder is known by its SKILL.md without reading it, unless its skills are wanted too.
      const probe = probeSkillFiles && bounds.nested !== true && level !== first;
      const listings = batch.map((folder) =>
        probe && holdsSkillFile(folder.path) ? skillFolderProbed : readEntries(folder.path),
      );
      // An index loop: `batch.entries()` made an iterator result and an [index, folder] pair per folder.
      for (let index = 0; index < batch.length; index += 1) {
        const folder = batch[index] as PendingFolder;
        const listing = listings[index];
        if (listing === undefined) continue;
        if (listing !== skillFolderProbed && !Array.isArray(listing)) {
          warnings.push(`cannot read folder ${folder.path}: ${listing.code ?? listing.message}`);
          continue;
        }
        // A probed folder counts as the one entry looked at: the bound still bounds the work.
        entriesRead += listing === skillFolderProbed ? 1 : listing.length;
        if (entriesRead > bounds.maxEntries) {
          warnings.push(
            `stopped scanning ${root} after ${bounds.maxEntries} entries (maxEntries); skills in ${folder.path} and later folders were not looked for`,
          );
          break scan;
        }
        if (listing === skillFolderProbed) {
          found.push(foundSkill(folder, skillFileName, false));
          continue;
        }
        const skillFile = firstSkillFile(listing);
        if (skillFile) {
          // A regular file is the common case, decided without a turn through a promise.
          const outcome = skillFile.isFile()
            ? foundSkill(folder, skillFile.name, false)
            : await classifySkillFile(root, folder, skillFile, bounds.siblingRoots ?? []);
          if ('reason' in outcome) skipped.push(outcome);
          else found.push(outcome);
          if (!bounds.nested) continue;
        }
        for (const entry of sortedEntries(listing)) {
          if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
          if (isSkippedFolderName(entry.name)) continue;
          const child = entry.isDirectory()
            ? childDirectory(folder, entry, visited)
            : await childFolder(root, folder, entry, visited, warnings, bounds.siblingRoots ?? []);
          if (!child) continue;
          if (child.depth > bounds.maxDepth) {
            tooDeep += 1;
            firstTooDeep ??= child.path;
            continue;
          }
          next.push(child);
        }
      }
    }
    level = next;
  }
  if (tooDeep > 0) {
    warnings.push(
      `${tooDeep} folder${tooDeep === 1 ? '' : 's'} under ${root} deeper than ${bounds.maxDepth} levels (maxDepth) not scanned, first: ${firstTooDeep}`,
    );
  }
  return { found: sortedByRelativePath(found), skipped, warnings };
}

/** childFolder for an entry that is a folder itself (no link to resolve). */
function childDirectory(parent: PendingFolder, entry: Dirent, visited: Set<string>): PendingFolder | undefined {
  const realPath = childPath(parent.realPath, entry.name);
  if (visited.has(realPath)) return undefined;
  visited.add(realPath);
  return {
    // Reached without a link, a folder's path is its real path: one string for both.
    path: parent.path === parent.realPath ? realPath : childPath(parent.path, entry.name),
    realPath,
    relative: parent.relative === '' ? entry.name : `${parent.relative}/${entry.name}`,
    name: entry.name,
    depth: parent.depth + 1,
  };
}

async function childFolder(
  root: string,
  parent: PendingFolder,
  entry: Dirent,
  visited: Set<string>,
  warnings: string[],
  siblingRoots: readonly string[],
): Promise<PendingFolder | undefined> {
  const path = join(parent.path, entry.name);
  const relative = parent.relative === '' ? entry.name : `${parent.relative}/${entry.name}`;
  let realPath: string;
  if (entry.isDirectory()) {
    realPath = join(parent.realPath, entry.name);
  } else if (entry.isSymbolicLink()) {
    const target = await resolveLinkWithin(path, root, siblingRoots);
    if (target.kind === 'outside') {
      warnings.push(`not following ${path}: the link leads out of the root to ${target.realPath}`);
      return undefined;
    }
    if (target.kind === 'dangling') {
      if (target.code === 'ELOOP') warnings.push(`not following ${path}: the link loops on itself`);
      return undefined;
    }
    if (!target.stats.isDirectory()) return undefined;
    if (isWithin(parent.realPath, target.realPath)) {
      warnings.push(`not following ${path}: the link leads back to ${target.realPath}, which holds it (a loop)`);
      return undefined;
    }
    realPath = target.realPath;
  } else {
    return undefined;
  }
  // A folder reached twice (through a link and by its own name) is scanned once.
  if (visited.has(realPath)) return undefined;
  visited.add(realPath);
  return { path, realPath, relative, name: entry.name, depth: parent.depth + 1 };
}

/** What the probe found in place of a folder's entries: a SKILL.md that is a regular file. */
const skillFolderProbed = Symbol('SKILL.md is a regular file');
const skillFileName = 'SKILL.md';

function foundSkill(folder: PendingFolder, fileName: string, linked: boolean): FoundSkillFolder {
  return {
    folder: folder.path,
    file: childPath(folder.path, fileName),
    linked,
    relativeFolder: folder.relative,
    realFolder: folder.realPath,
    folderName: folder.name,
  };
}

async function classifySkillFile(
  root: string,
  folder: PendingFolder,
  entry: Dirent,
  siblingRoots: readonly string[],
): Promise<FoundSkillFolder | SkippedSkillFolder> {
  const file = join(folder.path, entry.name);
  const realFolder = folder.realPath;
  const skipped = (reason: string): SkippedSkillFolder => ({ path: file, reason, realFolder });
  if (entry.isFile()) return foundSkill(folder, entry.name, false);
  if (entry.isDirectory()) return skipped(`${entry.name} is a folder, not a file`);
  if (entry.isSymbolicLink()) {
    const target = await resolveLinkWithin(file, root, siblingRoots);
    if (target.kind === 'outside')
      return skipped(`${entry.name} is a link that leads out of the root (to ${target.realPath})`);
    if (target.kind === 'dangling') return skipped(`${entry.name} is a link that cannot be followed (${target.code})`);
    if (target.stats.isFile()) return foundSkill(folder, entry.name, true);
    return skipped(`${entry.name} is a link to something that is not a file`);
  }
  return skipped(`${entry.name} is not a regular file`);
}

/** resolveLink against the root, then, for a link that leaves it, against the sibling roots. */
async function resolveLinkWithin(linkPath: string, root: string, siblingRoots: readonly string[]): Promise<LinkTarget> {
  const target = await resolveLink(linkPath, root);
  if (target.kind !== 'outside') return target;
  const sibling = siblingRoots.find((other) => other !== root && isWithin(target.realPath, other));
  return sibling === undefined ? target : resolveLink(linkPath, sibling);
}
