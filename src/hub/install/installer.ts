import { readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { compareInstalledSkill } from '../../repository/compare-installed-skill.js';
import { withExclusiveLock } from '../../repository/exclusive-lock.js';
import {
  emptySkillsLock,
  readSkillsLock,
  type SkillsLock,
  type SkillsLockEntry,
  skillsLockFileFor,
  writeSkillsLock,
} from '../../repository/skills-lock-file.js';
import { runnableFindingKinds, type SkillScanReport } from '../scan/scan-finding.js';
import { scanSkill } from '../scan/scan-skill.js';
import { defaultSkillSizeLimits, type SkillSizeLimits } from '../skill-size-limits.js';
import type { FetchedSkill, ResolvedSource } from '../skill-source.js';
import type { SourceRegistry } from '../source-registry.js';
import { SkillInstallError } from './install-errors.js';
import { lockEntryFor, matchesEntry, referenceOf } from './lock-entry.js';
import { validateFetchedSkill } from './validate-fetched-skill.js';
import { removeSkillFolder, stageAndSwap } from './write-skill-folders.js';

/** A step of an install, for a progress line. */
export interface InstallProgress {
  readonly phase: 'waiting' | 'resolving' | 'fetching' | 'scanning' | 'writing';
  readonly message: string;
}

/** Options every installer call takes: where skills go, where they come from, and how to ask. */
export interface InstallerOptions {
  /** The sources references are resolved with (`createSourceRegistry`). */
  readonly registry: SourceRegistry;
  /** Relative paths resolve against this; defaults to `process.cwd()`. */
  readonly cwd?: string;
  /** The folder skills are installed in (default `./.agents/skills`, where the `skills` CLI installs). */
  readonly target?: string;
  /** The lock file (default `skillsLockFileFor(target)`: `./skills-lock.json` for the default target). */
  readonly lockFile?: string;
  /** Size and count limits per skill. */
  readonly limits?: Partial<SkillSizeLimits>;
  /** Refuse any skill whose scan finds scripts, executables or binaries. */
  readonly denyScripts?: boolean;
  /**
   * Shown the scan of every skill about to be written; return false to refuse the install. Absent:
   * installs go ahead whatever the scan found (the CLI always passes one).
   */
  readonly review?: (reports: readonly SkillScanReport[]) => boolean | Promise<boolean>;
  readonly onProgress?: (progress: InstallProgress) => void;
  readonly signal?: AbortSignal;
}

/** One skill written by an install, update or restore. */
export interface InstalledSkill {
  readonly name: string;
  readonly path: string;
  readonly entry: SkillsLockEntry;
}

/** What `verifyInstalled` found: differences per locked skill, and skill folders the lock does not list. */
export interface VerifyReport {
  readonly lockFile: string;
  readonly skills: readonly { readonly name: string; readonly differences: readonly string[] }[];
  readonly unlisted: readonly string[];
}

interface Context {
  registry: SourceRegistry;
  target: string;
  lockFile: string;
  limits: SkillSizeLimits;
  options: InstallerOptions;
}

function contextOf(options: InstallerOptions): Context {
  const cwd = options.cwd ?? process.cwd();
  const target = resolve(cwd, options.target ?? join('.agents', 'skills'));
  return {
    registry: options.registry,
    target,
    lockFile: options.lockFile === undefined ? skillsLockFileFor(target) : resolve(cwd, options.lockFile),
    limits: { ...defaultSkillSizeLimits, ...options.limits },
    options,
  };
}

function report(context: Context, phase: InstallProgress['phase'], message: string): void {
  context.options.onProgress?.({ phase, message });
}

async function locked<T>(context: Context, work: () => Promise<T>): Promise<T> {
  return withExclusiveLock(`${context.lockFile}.lock`, work, {
    onWait: (holder) => report(context, 'waiting', `waiting for ${holder} installing into ${context.target}`),
  });
}

async function fetchSkills(
  context: Context,
  reference: string,
  request: { readonly skills?: readonly string[]; readonly ref?: string },
): Promise<{ resolved: ResolvedSource; skills: readonly FetchedSkill[] }> {
  const source = context.registry.sourceFor(reference);
  const signal = context.options.signal;
  report(context, 'resolving', `resolving ${reference}`);
  const resolved = await source.resolve(reference, {
    ...(request.ref === undefined ? {} : { ref: request.ref }),
    ...(signal === undefined ? {} : { signal }),
  });
  report(context, 'fetching', `fetching ${reference}${resolved.pinned === undefined ? '' : ` at ${resolved.pinned}`}`);
  const skills = await source.fetch(resolved, {
    ...(request.skills === undefined || request.skills.length === 0 ? {} : { skills: request.skills }),
    ...(signal === undefined ? {} : { signal }),
  });
  if (skills.length === 0) throw new SkillInstallError(`${reference}: no skill found`);
  const seen = new Set<string>();
  for (const skill of skills) {
    validateFetchedSkill(skill, context.limits, reference);
    if (seen.has(skill.name)) throw new SkillInstallError(`${reference}: two skills are named ${skill.name}`);
    seen.add(skill.name);
  }
  return { resolved, skills };
}

/** Scans, applies `denyScripts`, and asks `review`; throws SkillInstallError when the install is refused. */
async function reviewSkills(context: Context, skills: readonly FetchedSkill[]): Promise<readonly SkillScanReport[]> {
  report(context, 'scanning', `scanning ${skills.length} skill${skills.length === 1 ? '' : 's'}`);
  const reports = skills.map((skill) =>
    scanSkill(
      skill.name,
      skill.files.map((file) => ({ kind: 'file' as const, ...file })),
    ),
  );
  if (context.options.denyScripts === true) {
    const runnable = reports.flatMap((scan) =>
      scan.findings
        .filter((finding) => runnableFindingKinds.has(finding.kind))
        .map((finding) => `${scan.skill}/${finding.path}`),
    );
    if (runnable.length > 0)
      throw new SkillInstallError(
        `refused by --deny-scripts: ${[...new Set(runnable)].join(', ')} can run; nothing was installed`,
      );
  }
  if (context.options.review !== undefined && !(await context.options.review(reports)))
    throw new SkillInstallError('the install was declined after the scan; nothing was installed');
  return reports;
}

/** Writes the skills and their lock entries under the target's lock; all or nothing. */
async function writeInstall(
  context: Context,
  items: readonly { skill: FetchedSkill; entry: SkillsLockEntry }[],
  change: (lock: SkillsLock) => SkillsLock = (lock) => lock,
): Promise<InstalledSkill[]> {
  return locked(context, async () => {
    const before = (await readSkillsLock(context.lockFile)) ?? emptySkillsLock();
    report(context, 'writing', `writing ${items.map((item) => item.skill.name).join(', ')} to ${context.target}`);
    const staged = await stageAndSwap(
      context.target,
      items.map((item) => item.skill),
    );
    try {
      const skills = { ...change(before).skills };
      for (const item of items) skills[item.skill.name] = item.entry;
      await writeSkillsLock(context.lockFile, { ...before, skills });
    } catch (error) {
      await staged.rollback();
      throw error;
    }
    await staged.commit();
    return items.map((item) => ({
      name: item.skill.name,
      path: join(context.target, item.skill.name),
      entry: item.entry,
    }));
  });
}

/**
 * `skillbox add`: resolves `reference` with the first matching source, fetches the skills (all, or
 * those named in `skills`), checks and scans them, and installs them into the target with their
 * lock entries. Nothing is written unless every skill passed.
 */
export async function addSkills(
  reference: string,
  request: { readonly skills?: readonly string[]; readonly ref?: string },
  options: InstallerOptions,
): Promise<InstalledSkill[]> {
  const context = contextOf(options);
  const { resolved, skills } = await fetchSkills(context, reference, request);
  await reviewSkills(context, skills);
  const lockFolder = dirname(context.lockFile);
  return writeInstall(
    context,
    skills.map((skill) => ({ skill, entry: lockEntryFor(skill, resolved, lockFolder) })),
  );
}

async function readLockOrFail(context: Context): Promise<SkillsLock> {
  const lock = await readSkillsLock(context.lockFile);
  if (lock === undefined)
    throw new SkillInstallError(`no ${context.lockFile}; install a skill with skillbox add first`);
  return lock;
}

function namesOrAll(lock: SkillsLock, names: readonly string[] | undefined, lockFile: string): string[] {
  if (names === undefined || names.length === 0) return Object.keys(lock.skills).sort();
  const unknown = names.filter((name) => lock.skills[name] === undefined);
  if (unknown.length > 0) throw new SkillInstallError(`${lockFile} has no skill named ${unknown.join(', ')}`);
  return [...names];
}

/** Fetches the skill a lock entry names again; `pin` asks for the recorded commit or version instead of the ref. */
async function refetch(
  context: Context,
  name: string,
  entry: SkillsLockEntry,
  pin: boolean,
): Promise<{ resolved: ResolvedSource; skill: FetchedSkill }> {
  const reference = referenceOf(entry, dirname(context.lockFile));
  const ref = pin ? (entry.skillbox?.pinned ?? entry.ref) : entry.ref;
  const { resolved, skills } = await fetchSkills(context, reference, {
    skills: [name],
    ...(ref === undefined ? {} : { ref }),
  });
  const skill = skills.find((candidate) => candidate.name === name) ?? (skills.length === 1 ? skills[0] : undefined);
  if (skill === undefined) throw new SkillInstallError(`${reference} no longer has a skill named ${name}`);
  return { resolved, skill: skill.name === name ? skill : { ...skill, name } };
}

/**
 * `skillbox update [NAME]`: fetches each locked skill (or those named) from its source at its ref
 * and reinstalls the ones whose content changed. Returns the skills written.
 */
export async function updateSkills(
  names: readonly string[] | undefined,
  options: InstallerOptions,
): Promise<InstalledSkill[]> {
  const context = contextOf(options);
  const lock = await readLockOrFail(context);
  const changed: { skill: FetchedSkill; entry: SkillsLockEntry }[] = [];
  for (const name of namesOrAll(lock, names, context.lockFile)) {
    const entry = lock.skills[name] as SkillsLockEntry;
    const { resolved, skill } = await refetch(context, name, entry, false);
    if (matchesEntry(skill, entry) && resolved.pinned === entry.skillbox?.pinned) continue;
    changed.push({
      skill,
      entry: { ...lockEntryFor(skill, resolved, dirname(context.lockFile)), source: entry.source },
    });
  }
  if (changed.length === 0) return [];
  await reviewSkills(
    context,
    changed.map((item) => item.skill),
  );
  return writeInstall(context, changed);
}

/**
 * `skillbox install`: puts every skill of the lock into the target. With `frozen`, each must come
 * back exactly as locked (same pin, same digest and `computedHash`) or nothing is written; without
 * it, the lock entries are rewritten with what the sources gave.
 */
export async function installFromLock(
  options: InstallerOptions & { readonly frozen?: boolean },
): Promise<InstalledSkill[]> {
  const context = contextOf(options);
  const lock = await readLockOrFail(context);
  const items: { skill: FetchedSkill; entry: SkillsLockEntry }[] = [];
  const mismatches: string[] = [];
  for (const name of Object.keys(lock.skills).sort()) {
    const entry = lock.skills[name] as SkillsLockEntry;
    const { resolved, skill } = await refetch(context, name, entry, options.frozen === true);
    if (options.frozen === true) {
      const pinned = entry.skillbox?.pinned;
      if (pinned !== undefined && resolved.pinned !== pinned)
        mismatches.push(
          `${name}: ${entry.source} resolved to ${resolved.pinned ?? 'nothing pinned'}, the lock says ${pinned}`,
        );
      else if (!matchesEntry(skill, entry))
        mismatches.push(`${name}: the content of ${entry.source} differs from the lock (digest or computedHash)`);
      items.push({ skill, entry });
    } else {
      items.push({
        skill,
        entry: { ...lockEntryFor(skill, resolved, dirname(context.lockFile)), source: entry.source },
      });
    }
  }
  if (mismatches.length > 0)
    throw new SkillInstallError(
      `install --frozen refused; nothing was installed:\n${mismatches.map((line) => `  ${line}`).join('\n')}`,
    );
  if (items.length === 0) return [];
  await reviewSkills(
    context,
    items.map((item) => item.skill),
  );
  return writeInstall(context, items);
}

/** `skillbox remove NAME`: deletes the installed folder and its lock entry. */
export async function removeSkill(name: string, options: InstallerOptions): Promise<void> {
  const context = contextOf(options);
  await locked(context, async () => {
    const lock = await readSkillsLock(context.lockFile);
    const inLock = lock?.skills[name] !== undefined;
    if (
      !inLock &&
      !(await stat(join(context.target, name)).then(
        () => true,
        () => false,
      ))
    )
      throw new SkillInstallError(`no skill named ${name} in ${context.target} or ${context.lockFile}`);
    if (lock !== undefined && inLock) {
      const { [name]: _removed, ...rest } = lock.skills;
      await writeSkillsLock(context.lockFile, { ...lock, skills: rest });
    }
    await removeSkillFolder(context.target, name);
  });
}

/**
 * `skillbox verify`: every difference between the installed folders and the lock, per skill, and
 * the skill folders in the target the lock does not list.
 */
export async function verifyInstalled(
  options: Omit<InstallerOptions, 'registry'> & { registry?: SourceRegistry },
): Promise<VerifyReport> {
  const context = contextOf(options as InstallerOptions);
  const lock = await readLockOrFail(context);
  const skills: { name: string; differences: string[] }[] = [];
  for (const name of Object.keys(lock.skills).sort())
    skills.push({
      name,
      differences: await compareInstalledSkill(join(context.target, name), lock.skills[name] as SkillsLockEntry),
    });
  const folders = await readdir(context.target, { withFileTypes: true }).catch(() => []);
  const unlisted: string[] = [];
  for (const folder of folders)
    if (folder.isDirectory() && lock.skills[folder.name] === undefined)
      if (
        await stat(join(context.target, folder.name, 'SKILL.md')).then(
          () => true,
          () => false,
        )
      )
        unlisted.push(folder.name);
  return { lockFile: context.lockFile, skills, unlisted: unlisted.sort() };
}
