import { randomBytes } from 'node:crypto';
import { lstat, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SkillsLockError } from './skills-lock-errors.js';

/** The name the `skills` CLI gives its project lock file, and skillbox with it. */
export const skillsLockFileName = 'skills-lock.json';

/** The only lock format version the `skills` CLI writes (1.5.x) and skillbox reads. */
export const skillsLockVersion = 1;

/** What skillbox records per file of an installed skill, beside the `skills` CLI's fields. */
export interface LockedFile {
  /** Lowercase hex SHA-256 of the content. */
  readonly sha256: string;
  readonly size: number;
  /** Present (and true) when the file is installed with its executable bits set. */
  readonly executable?: true;
}

/** skillbox's own fields of a lock entry, kept under one `skillbox` key so the `skills` CLI's names stay free. */
export interface SkillboxLockFields {
  /** The immutable identity the source's ref resolved to (a commit, a package version, an index digest). */
  readonly pinned?: string;
  /** `skillDigest` of the whole skill (length-prefixed paths and contents). */
  readonly digest: string;
  /** Every file of the skill by `/`-separated relative path. */
  readonly files: Readonly<Record<string, LockedFile>>;
  /**
   * The agent folders skillbox put this skill in besides the install folder (`skillbox add
   * --link claude-code`), by the `skills` CLI's agent name: a relative symbolic link, or a copy
   * where links could not be made. The path follows from the name (`.claude/skills/<folder>`
   * under the lock's folder), so a lock cannot point removal anywhere else.
   */
  readonly links?: Readonly<Record<string, 'symlink' | 'copy'>>;
}

/**
 * One skill of `skills-lock.json`. The first six fields are the `skills` CLI's, with its meaning:
 * `skillPath` is the path of the skill's SKILL.md inside the source (`skills/pdf/SKILL.md`),
 * `computedHash` is `skillsCliComputedHash` of the installed folder. Fields neither tool knows are
 * kept as read.
 */
export interface SkillsLockEntry {
  readonly source: string;
  readonly sourceType: string;
  readonly sourceUrl?: string;
  readonly ref?: string;
  readonly skillPath?: string;
  readonly computedHash: string;
  readonly skillbox?: SkillboxLockFields;
  readonly [field: string]: unknown;
}

/**
 * The whole lock: its format version and one entry per installed skill, keyed by the skill's name
 * as the `skills` CLI keys it (`skillsCliFolderName` gives the folder it is installed in).
 */
export interface SkillsLock {
  readonly version: number;
  readonly skills: Readonly<Record<string, SkillsLockEntry>>;
}

const sha256Hex = /^[0-9a-f]{64}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkSkillboxFields(file: string, name: string, value: unknown): void {
  const at = `skills["${name}"].skillbox`;
  if (!isRecord(value)) throw new SkillsLockError(file, `${at} must be an object`);
  if (value.pinned !== undefined && typeof value.pinned !== 'string')
    throw new SkillsLockError(file, `${at}.pinned must be a string`);
  if (typeof value.digest !== 'string' || !sha256Hex.test(value.digest))
    throw new SkillsLockError(file, `${at}.digest must be 64 lowercase hex digits`);
  if (!isRecord(value.files)) throw new SkillsLockError(file, `${at}.files must be an object`);
  if (value.links !== undefined) {
    if (!isRecord(value.links)) throw new SkillsLockError(file, `${at}.links must be an object`);
    for (const [agent, mode] of Object.entries(value.links))
      if (mode !== 'symlink' && mode !== 'copy')
        throw new SkillsLockError(file, `${at}.links["${agent}"] must be "symlink" or "copy"`);
  }
  for (const [path, locked] of Object.entries(value.files)) {
    const where = `${at}.files["${path}"]`;
    if (!isRecord(locked)) throw new SkillsLockError(file, `${where} must be an object`);
    if (typeof locked.sha256 !== 'string' || !sha256Hex.test(locked.sha256))
      throw new SkillsLockError(file, `${where}.sha256 must be 64 lowercase hex digits`);
    if (typeof locked.size !== 'number' || !Number.isSafeInteger(locked.size) || locked.size < 0)
      throw new SkillsLockError(file, `${where}.size must be a non-negative integer`);
    if (locked.executable !== undefined && locked.executable !== true)
      throw new SkillsLockError(file, `${where}.executable must be true when present`);
  }
}

/** Checks parsed JSON against the lock's shape; throws SkillsLockError naming the field. */
export function checkSkillsLock(file: string, value: unknown): SkillsLock {
  if (!isRecord(value)) throw new SkillsLockError(file, 'must hold a JSON object');
  if (typeof value.version !== 'number' || !Number.isInteger(value.version))
    throw new SkillsLockError(file, '"version" must be an integer');
  if (value.version !== skillsLockVersion)
    throw new SkillsLockError(
      file,
      `"version" is ${value.version}; this skillbox reads version ${skillsLockVersion} (the skills CLI's)`,
    );
  if (!isRecord(value.skills)) throw new SkillsLockError(file, '"skills" must be an object');
  for (const [name, entry] of Object.entries(value.skills)) {
    if (!isRecord(entry)) throw new SkillsLockError(file, `skills["${name}"] must be an object`);
    for (const field of ['source', 'sourceType', 'computedHash'] as const)
      if (typeof entry[field] !== 'string')
        throw new SkillsLockError(file, `skills["${name}"].${field} must be a string`);
    for (const field of ['sourceUrl', 'ref', 'skillPath'] as const)
      if (entry[field] !== undefined && typeof entry[field] !== 'string')
        throw new SkillsLockError(file, `skills["${name}"].${field} must be a string when present`);
    if (entry.skillbox !== undefined) checkSkillboxFields(file, name, entry.skillbox);
  }
  return value as unknown as SkillsLock;
}

/** Reads and checks a lock file; undefined when there is none. Throws SkillsLockError for a malformed one. */
export async function readSkillsLock(file: string): Promise<SkillsLock | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SkillsLockError(file, `cannot be read: ${(error as NodeJS.ErrnoException).code ?? error}`, {
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SkillsLockError(file, `is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return checkSkillsLock(file, parsed);
}

/** An empty lock of the current version. */
export function emptySkillsLock(): SkillsLock {
  return { version: skillsLockVersion, skills: {} };
}

/**
 * Writes the lock as the `skills` CLI does (entries sorted by name, two-space indentation, a final
 * newline), through a temporary file renamed over the old one, so a reader never sees half a lock.
 */
export async function writeSkillsLock(file: string, lock: SkillsLock): Promise<void> {
  const skills: Record<string, SkillsLockEntry> = {};
  for (const name of Object.keys(lock.skills).sort()) skills[name] = lock.skills[name] as SkillsLockEntry;
  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, `${JSON.stringify({ ...lock, version: lock.version, skills }, null, 2)}\n`, 'utf8');
    await rename(temporary, file);
  } finally {
    await rm(temporary, { force: true });
  }
}

/**
 * The lock file that records the skills installed in `skillsFolder`. For the folders agents read in
 * a project (`<project>/.agents/skills`, `<project>/.claude/skills`: a `skills` folder inside a dot
 * folder) it is `<project>/skills-lock.json`, where the `skills` CLI keeps it; for any other folder
 * it is `skills-lock.json` inside that folder.
 */
export function skillsLockFileFor(skillsFolder: string): string {
  const parent = dirname(skillsFolder);
  if (basename(skillsFolder) === 'skills' && basename(parent).startsWith('.') && basename(parent).length > 1)
    return join(dirname(parent), skillsLockFileName);
  return join(skillsFolder, skillsLockFileName);
}

/**
 * The folders a project-root lock's skills may be installed in, the one rule every command uses: the
 * `skills` folder of each dot folder of the project (`.agents/skills` first, where skillbox and the
 * `skills` CLI install by default, then `.claude/skills`, `.cursor/skills`, … by name), the same
 * folders `skillsLockFileFor` maps to `<project>/skills-lock.json`. Only folders that exist.
 */
export async function lockedSkillFolders(project: string): Promise<string[]> {
  const entries = await readdir(project, { withFileTypes: true }).catch(() => []);
  const dotFolders = entries
    .filter((entry) => entry.isDirectory() && entry.name.startsWith('.') && entry.name.length > 1)
    .map((entry) => entry.name)
    .sort((left, right) => (left === '.agents' ? -1 : right === '.agents' ? 1 : left < right ? -1 : 1));
  const folders: string[] = [];
  for (const name of dotFolders) {
    const folder = join(project, name, 'skills');
    if ((await lstat(folder).catch(() => undefined))?.isDirectory()) folders.push(folder);
  }
  return folders;
}
