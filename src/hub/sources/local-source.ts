import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeSkillName } from '../../format/frontmatter-rules.js';
import { parseSkillMarkdown } from '../../format/parse-skill.js';
import { isWithin } from '../../repository/resolve-link.js';
import { unhashedFolderNames } from '../../repository/skill-digest.js';
import { defaultSkillSizeLimits, type SkillSizeLimits } from '../skill-size-limits.js';
import type { FetchedFile, FetchedSkill, ResolvedSource, SkillSource } from '../skill-source.js';
import { SkillSourceError, type SkillSourceFailure } from './skill-source-error.js';

function localError(
  reference: string,
  why: string,
  options?: { cause?: unknown },
  failure: SkillSourceFailure = 'refused',
) {
  return new SkillSourceError('local', reference, failure, why, options);
}

/** Options of `createLocalSkillSource`. */
export interface LocalSkillSourceOptions {
  /** Relative folder references resolve against this; defaults to `process.cwd()`. */
  readonly cwd?: string;
  /** Size and count limits of one skill; see `defaultSkillSizeLimits`. */
  readonly limits?: Partial<SkillSizeLimits>;
  /** Folder levels searched below the reference for SKILL.md files (default 6). */
  readonly maxDepth?: number;
}

/** Folders never searched for skills: build output and dependencies hold copies, not sources. */
const unsearchedFolderNames = new Set([...unhashedFolderNames, 'dist', 'build', '__pycache__']);

/** The `skills` CLI's test for a local reference, plus `file:` URLs. */
function isLocalReference(reference: string): boolean {
  return (
    isAbsolute(reference) ||
    reference.startsWith('./') ||
    reference.startsWith('../') ||
    reference === '.' ||
    reference === '..' ||
    // `file://…/repo.git` and `git+file://…` are git repositories: the git source reads them.
    (reference.startsWith('file:') && !/\.git\/?(#.*)?$/.test(reference)) ||
    /^[A-Za-z]:[/\\]/.test(reference)
  );
}

/** A folder with git's own `HEAD`, `objects` and `refs` at its top: a bare repository, no files to read. */
async function isBareGitRepository(folder: string): Promise<boolean> {
  const kinds = await Promise.all(
    ['HEAD', 'objects', 'refs'].map((name) => stat(join(folder, name)).catch(() => undefined)),
  );
  return kinds[0]?.isFile() === true && kinds[1]?.isDirectory() === true && kinds[2]?.isDirectory() === true;
}

/** Folders holding a SKILL.md at or below `folder`, not descending into a found skill. */
async function findSkillFolders(folder: string, maxDepth: number): Promise<string[]> {
  const found: string[] = [];
  const walk = async (current: string, depth: number): Promise<void> => {
    const entries = await readdir(current, { withFileTypes: true });
    if (entries.some((entry) => entry.name === 'SKILL.md' && entry.isFile())) {
      found.push(current);
      return;
    }
    if (depth >= maxDepth) return;
    for (const entry of entries)
      if (entry.isDirectory() && !unsearchedFolderNames.has(entry.name))
        await walk(join(current, entry.name), depth + 1);
  };
  await walk(folder, 0);
  return found.sort();
}

/**
 * Reads one regular file without following a link and without blocking on a FIFO swapped in after
 * the walk looked at it: the open refuses links, and the opened handle must be the file that was seen.
 */
async function readRegularFile(path: string, seen: Stats, reference: string, shown: string): Promise<Uint8Array> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || opened.ino !== seen.ino || opened.dev !== seen.dev)
      throw localError(reference, `${shown} changed while it was read`);
    const bytes = await handle.readFile();
    if (bytes.length !== opened.size) throw localError(reference, `${shown} changed while it was read`);
    return bytes;
  } finally {
    await handle.close();
  }
}

/**
 * Every file of one skill folder, read within the limits. Links are followed only to files inside
 * the skill folder (their content is copied, as an install has no links); a link that leads out, to
 * a folder, or nowhere, and any FIFO, socket or device, refuses the whole skill.
 */
async function readSkillFolder(
  skillFolder: string,
  reference: string,
  limits: SkillSizeLimits,
  maxDepth: number,
): Promise<FetchedFile[]> {
  const files: FetchedFile[] = [];
  let total = 0;
  const add = async (absolute: string, path: string, stats: Stats): Promise<void> => {
    const shown = `${basename(skillFolder)}/${path}`;
    if (stats.size > limits.maxFileBytes)
      throw localError(
        reference,
        `${shown} is ${stats.size} bytes, over the ${limits.maxFileBytes}-byte limit per file (maxFileBytes)`,
      );
    total += stats.size;
    if (total > limits.maxSkillBytes)
      throw localError(
        reference,
        `skill ${basename(skillFolder)} holds over ${limits.maxSkillBytes} bytes (maxSkillBytes)`,
      );
    if (files.length >= limits.maxFiles)
      throw localError(reference, `skill ${basename(skillFolder)} holds over ${limits.maxFiles} files (maxFiles)`);
    const bytes = await readRegularFile(absolute, stats, reference, shown);
    files.push({ path, bytes, executable: (stats.mode & 0o111) !== 0 });
  };
  const walk = async (current: string, prefix: string, depth: number): Promise<void> => {
    if (depth > maxDepth) throw localError(reference, `${current} is nested over ${maxDepth} folders deep`);
    for (const name of (await readdir(current)).sort()) {
      const absolute = join(current, name);
      const path = prefix === '' ? name : `${prefix}/${name}`;
      const shown = `${basename(skillFolder)}/${path}`;
      const stats = await lstat(absolute);
      if (stats.isDirectory()) {
        if (!unhashedFolderNames.has(name)) await walk(absolute, path, depth + 1);
      } else if (stats.isFile()) {
        await add(absolute, path, stats);
      } else if (stats.isSymbolicLink()) {
        let target: string;
        try {
          target = await realpath(absolute);
        } catch (error) {
          throw localError(
            reference,
            `${shown} is a link that leads nowhere (${(error as NodeJS.ErrnoException).code})`,
          );
        }
        if (!isWithin(target, skillFolder))
          throw localError(reference, `${shown} is a link that leads out of the skill folder, to ${target}`);
        const targetStats = await stat(target);
        if (!targetStats.isFile())
          throw localError(reference, `${shown} is a link to a folder or special file; only links to files are copied`);
        await add(target, path, targetStats);
      } else {
        throw localError(reference, `${shown} is not a regular file (a FIFO, socket or device)`);
      }
    }
  };
  await walk(skillFolder, '', 0);
  return files;
}

function limitsOf(options: LocalSkillSourceOptions): SkillSizeLimits {
  const limits = { ...defaultSkillSizeLimits, ...options.limits };
  for (const key of ['maxFileBytes', 'maxSkillBytes', 'maxFiles'] as const) {
    if (!Number.isSafeInteger(limits[key]) || limits[key] < 1)
      throw new TypeError(`local source option limits.${key} must be a positive integer, got ${String(limits[key])}`);
  }
  return limits;
}

/**
 * Skills from a folder on this machine: the folder itself when it holds a SKILL.md, else every
 * skill folder below it. Nothing outside a skill's folder is read, links included.
 */
export function createLocalSkillSource(options: LocalSkillSourceOptions = {}): SkillSource {
  const cwd = options.cwd ?? process.cwd();
  const limits = limitsOf(options);
  const maxDepth = options.maxDepth ?? 6;
  return {
    type: 'local',
    matches: isLocalReference,
    async resolve(reference, callOptions = {}): Promise<ResolvedSource> {
      if (callOptions.ref !== undefined)
        throw localError(
          reference,
          `a local folder has no refs; drop --ref ${callOptions.ref}`,
          undefined,
          'invalid-reference',
        );
      const path = reference.startsWith('file:') ? fileURLToPath(reference) : resolve(cwd, reference);
      let real: string;
      try {
        real = await realpath(path);
      } catch (error) {
        throw localError(
          reference,
          `cannot open ${path}: ${(error as NodeJS.ErrnoException).code}`,
          { cause: error },
          'not-found',
        );
      }
      if (!(await stat(real)).isDirectory()) throw localError(reference, `${path} is not a folder`);
      if (await isBareGitRepository(real))
        throw localError(
          reference,
          `${path} is a git repository without a working tree (a bare repository): install it as git+file://${real}`,
          undefined,
          'invalid-reference',
        );
      return { sourceType: 'local', source: reference, sourceUrl: real };
    },
    async fetch(resolved, callOptions = {}): Promise<readonly FetchedSkill[]> {
      const root = resolved.sourceUrl;
      const wanted = callOptions.skills;
      const skills: FetchedSkill[] = [];
      for (const folder of await findSkillFolders(root, maxDepth)) {
        const real = await realpath(folder);
        if (!isWithin(real, root)) continue;
        const skillFileStats = await lstat(join(real, 'SKILL.md'));
        const skillText = await readRegularFile(join(real, 'SKILL.md'), skillFileStats, resolved.source, 'SKILL.md');
        let name: string;
        try {
          name = normalizeSkillName(parseSkillMarkdown(skillText, { file: join(real, 'SKILL.md') }).name);
        } catch (error) {
          throw localError(resolved.source, (error as Error).message, { cause: error });
        }
        if (name === '') name = basename(real);
        if (wanted !== undefined && !wanted.includes(name) && !wanted.includes(basename(real))) continue;
        skills.push({
          name,
          skillPath: relative(root, real).split(sep).join('/'),
          files: await readSkillFolder(real, resolved.source, limits, 32),
        });
      }
      if (wanted !== undefined) {
        const missing = wanted.filter(
          (name) => !skills.some((skill) => skill.name === name || basename(skill.skillPath) === name),
        );
        if (missing.length > 0)
          throw localError(resolved.source, `no skill named ${missing.join(', ')} in ${root}`, undefined, 'not-found');
      }
      return skills;
    },
  };
}
