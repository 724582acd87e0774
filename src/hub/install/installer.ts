import { lstat, readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { compareInstalledSkill } from '../../repository/compare-installed-skill.js';
import { withExclusiveLock } from '../../repository/exclusive-lock.js';
import { lockEntryOfFolder, skillsCliFolderName } from '../../repository/skills-cli-folder-name.js';
import {
  emptySkillsLock,
  lockedSkillFolders,
  readSkillsLock,
  type SkillsLock,
  type SkillsLockEntry,
  skillsLockFileFor,
  writeSkillsLock,
} from '../../repository/skills-lock-file.js';
import { deniedByDenyScripts, type SkillScanReport } from '../scan/scan-finding.js';
import { scanSkill } from '../scan/scan-skill.js';
import { defaultSkillSizeLimits, type SkillSizeLimits } from '../skill-size-limits.js';
import type { FetchedSkill, ResolvedSource } from '../skill-source.js';
import type { SourceRegistry } from '../source-registry.js';
import { withoutUrlCredentials } from '../url-credentials.js';
import {
  type AgentLink,
  type AgentLinkMode,
  type AppliedLinks,
  agentLinkProblems,
  applyAgentLinks,
  checkAgentLinks,
  checkAgentNames,
  removeAgentLinks,
} from './agent-links.js';
import { SkillInstallError } from './install-errors.js';
import { lockEntryFor, matchesEntry, referenceOf } from './lock-entry.js';
import { refuseLinkOutOfProject } from './project-confinement.js';
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
   * installs go ahead whatever the scan found (the CLI always passes one). `asLocked` is true for
   * `install --frozen`, where every file matched the lock's hashes: that content was reviewed when
   * it was added, so a reviewer may show the scan without asking again.
   */
  readonly review?: (
    reports: readonly SkillScanReport[],
    facts: { readonly asLocked: boolean },
  ) => boolean | Promise<boolean>;
  readonly onProgress?: (progress: InstallProgress) => void;
  readonly signal?: AbortSignal;
}

/** What `addSkills` can ask for besides the skills: their ref, and the agent folders to link them into. */
export interface AddRequest {
  /** Install only these skills of the source (all when absent or empty). */
  readonly skills?: readonly string[];
  /** The branch, tag or version to install, for sources that have refs. */
  readonly ref?: string;
  /**
   * Agents (the `skills` CLI's names: `claude-code`, `windsurf`, ...) whose project folder should
   * show the skills too: `<folder of the lock>/.claude/skills/<skill>`. Links already recorded for
   * a skill are kept; `update` and `install` keep and restore them, `remove` deletes them.
   */
  readonly link?: readonly string[];
  /** `symlink` (default: relative links, a copy where the file system refuses links) or `copy`. */
  readonly linkMode?: AgentLinkMode;
}

/** One skill written by an install, update or restore. */
export interface InstalledSkill {
  /** The skill's name, which is its key in the lock (the `skills` CLI's key). */
  readonly name: string;
  /** The installed folder: the target plus the `skills` CLI's folder name for `name`. */
  readonly path: string;
  readonly entry: SkillsLockEntry;
  /** The links (or copies) of the skill in agent folders. */
  readonly links: readonly AgentLink[];
}

/** What `removeSkill` did. */
export interface RemovedSkill {
  readonly name: string;
  readonly path: string;
  /** Agent folder entries left in place, each with why (a path the user has since replaced). */
  readonly keptLinks: readonly string[];
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
  /** The folder agent links go under: the lock's folder, which is the project for the default layout. */
  project: string;
  limits: SkillSizeLimits;
  options: InstallerOptions;
}

/** Whether `name` names one folder inside the folder it is joined to: no separator, not `.` or `..`, no NUL. */
function isOneFolderName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name);
}

function contextOf(options: InstallerOptions): Context {
  const cwd = options.cwd ?? process.cwd();
  const target = resolve(cwd, options.target ?? join('.agents', 'skills'));
  const lockFile = options.lockFile === undefined ? skillsLockFileFor(target) : resolve(cwd, options.lockFile);
  return {
    registry: options.registry,
    target,
    lockFile,
    project: dirname(lockFile),
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
  const shown = withoutUrlCredentials(reference);
  report(context, 'resolving', `resolving ${shown}`);
  const resolved = await source.resolve(reference, {
    ...(request.ref === undefined ? {} : { ref: request.ref }),
    ...(signal === undefined ? {} : { signal }),
  });
  report(context, 'fetching', `fetching ${shown}${resolved.pinned === undefined ? '' : ` at ${resolved.pinned}`}`);
  const skills = await source.fetch(resolved, {
    ...(request.skills === undefined || request.skills.length === 0 ? {} : { skills: request.skills }),
    ...(signal === undefined ? {} : { signal }),
  });
  if (skills.length === 0) throw new SkillInstallError(`${shown}: no skill found`);
  const seen = new Map<string, string>();
  for (const skill of skills) {
    validateFetchedSkill(skill, context.limits, shown);
    const folder = skillsCliFolderName(skill.name);
    const other = seen.get(folder);
    if (other !== undefined)
      throw new SkillInstallError(
        `${shown}: skills ${JSON.stringify(other)} and ${JSON.stringify(skill.name)} would both install into the folder ${folder}`,
      );
    seen.set(folder, skill.name);
  }
  return { resolved, skills };
}

/** Scans, applies `denyScripts`, and asks `review`; throws SkillInstallError when the install is refused. */
async function reviewSkills(
  context: Context,
  skills: readonly FetchedSkill[],
  asLocked = false,
): Promise<readonly SkillScanReport[]> {
  report(context, 'scanning', `scanning ${skills.length} skill${skills.length === 1 ? '' : 's'}`);
  const reports = skills.map((skill) =>
    scanSkill(
      skill.name,
      skill.files.map((file) => ({ kind: 'file' as const, ...file })),
    ),
  );
  if (context.options.denyScripts === true) {
    // One line per file (its first such finding): a script that is also executable is one file.
    const denied = new Map<string, string>();
    for (const scan of reports)
      for (const finding of scan.findings) {
        const file = `${scan.skill}/${finding.path}`;
        if (deniedByDenyScripts.has(finding.kind) && !denied.has(file)) denied.set(file, finding.detail);
      }
    if (denied.size > 0)
      throw new SkillInstallError(
        `refused by --deny-scripts: ${[...denied].map(([file, detail]) => `${file} (${detail})`).join(', ')}; only inert files (Markdown, plain text and data that are not code, images) may be installed with it; nothing was installed`,
      );
  }
  if (context.options.review !== undefined && !(await context.options.review(reports, { asLocked })))
    throw new SkillInstallError('the install was declined after the scan; nothing was installed');
  return reports;
}

/** One skill about to be written: its lock entry and the agent links it should have. */
interface InstallItem {
  readonly skill: FetchedSkill;
  readonly entry: SkillsLockEntry;
  /** Links to add for this install (`add --link`), besides those the lock already records. */
  readonly link?: Readonly<Record<string, AgentLinkMode>>;
}

/** The lock key that records the folder `folder`, when some key does. */
function keyOfFolder(lock: SkillsLock, folder: string): string | undefined {
  return lockEntryOfFolder(lock, folder)?.key;
}

/**
 * Writes the skills, their agent links and their lock entries under the target's lock; all or
 * nothing. Every link is checked before any file is written, so a path the user owns refuses the
 * whole install with nothing changed.
 */
async function writeInstall(
  context: Context,
  items: readonly InstallItem[],
  change: (lock: SkillsLock) => SkillsLock = (lock) => lock,
): Promise<InstalledSkill[]> {
  return locked(context, async () => {
    await refuseLinkOutOfProject(context.project, context.target, 'nothing was installed');
    const before = (await readSkillsLock(context.lockFile)) ?? emptySkillsLock();
    const prepared: {
      item: InstallItem;
      folder: string;
      previousKey: string | undefined;
      previousLinks: Readonly<Record<string, AgentLinkMode>> | undefined;
      planned: AgentLink[];
    }[] = [];
    for (const item of items) {
      const folder = skillsCliFolderName(item.skill.name);
      const previousKey = keyOfFolder(before, folder);
      const previousLinks =
        previousKey === undefined ? undefined : (before.skills[previousKey] as SkillsLockEntry).skillbox?.links;
      const wanted = { ...previousLinks, ...item.link };
      const planned = await checkAgentLinks(context.project, join(context.target, folder), wanted, previousLinks);
      prepared.push({ item, folder, previousKey, previousLinks, planned });
    }
    report(context, 'writing', `writing ${items.map((item) => item.skill.name).join(', ')} to ${context.target}`);
    const staged = await stageAndSwap(
      context.target,
      prepared.map(({ item, folder }) => ({ ...item.skill, name: folder })),
    );
    const applied: AppliedLinks[] = [];
    const results: InstalledSkill[] = [];
    try {
      const skills = { ...change(before).skills };
      for (const { item, folder, previousKey, previousLinks, planned } of prepared) {
        const path = join(context.target, folder);
        const links = await applyAgentLinks(path, planned, previousLinks);
        applied.push(links);
        const recorded: Record<string, AgentLinkMode> = {};
        for (const link of links.links) recorded[link.agent] = link.mode;
        const entry: SkillsLockEntry =
          item.entry.skillbox === undefined || Object.keys(recorded).length === 0
            ? item.entry
            : { ...item.entry, skillbox: { ...item.entry.skillbox, links: recorded } };
        // One folder, one key: a skill the skills CLI locked as "PDF Tools" and now installed as "pdf-tools".
        if (previousKey !== undefined && previousKey !== item.skill.name) delete skills[previousKey];
        skills[item.skill.name] = entry;
        results.push({ name: item.skill.name, path, entry, links: links.links });
      }
      await writeSkillsLock(context.lockFile, { ...before, skills });
    } catch (error) {
      for (const links of applied.reverse()) await links.rollback();
      await staged.rollback();
      throw error;
    }
    await staged.commit();
    for (const links of applied) await links.commit();
    return results;
  });
}

/**
 * `skillbox add`: resolves `reference` with the first matching source, fetches the skills (all, or
 * those named in `skills`), checks and scans them, and installs them into the target with their
 * lock entries. Nothing is written unless every skill passed.
 */
export async function addSkills(
  reference: string,
  request: AddRequest,
  options: InstallerOptions,
): Promise<InstalledSkill[]> {
  const context = contextOf(options);
  const agents = request.link ?? [];
  checkAgentNames(agents);
  const link: Record<string, AgentLinkMode> = {};
  for (const agent of agents) link[agent] = request.linkMode ?? 'symlink';
  const { resolved, skills } = await fetchSkills(context, reference, request);
  await reviewSkills(context, skills);
  return writeInstall(
    context,
    skills.map((skill) => ({ skill, entry: lockEntryFor(skill, resolved, context.project), link })),
  );
}

async function readLockOrFail(context: Context): Promise<SkillsLock> {
  const lock = await readSkillsLock(context.lockFile);
  if (lock === undefined)
    throw new SkillInstallError(`no ${context.lockFile}; install a skill with skillbox add first`);
  return lock;
}

/** The lock keys of `names` (each a key, or a folder name the `skills` CLI installed a key into); all keys when none. */
function namesOrAll(lock: SkillsLock, names: readonly string[] | undefined, lockFile: string): string[] {
  if (names === undefined || names.length === 0) return Object.keys(lock.skills).sort();
  const keys = names.map((name) => (lock.skills[name] === undefined ? keyOfFolder(lock, name) : name));
  const unknown = names.filter((_, index) => keys[index] === undefined);
  if (unknown.length > 0) throw new SkillInstallError(`${lockFile} has no skill named ${unknown.join(', ')}`);
  return [...new Set(keys as string[])];
}

/**
 * Fetches the skills lock entries name again, one resolve and one fetch per source and ref (30
 * skills of one repository are one download, not 30); `pin` asks for the recorded commit or
 * version instead of the ref. Returns each key's fetched skill and what its source resolved to.
 */
async function refetchAll(
  context: Context,
  lock: SkillsLock,
  keys: readonly string[],
  pin: boolean,
): Promise<Map<string, { resolved: ResolvedSource; skill: FetchedSkill }>> {
  const groups = new Map<string, { reference: string; ref: string | undefined; keys: string[] }>();
  for (const key of keys) {
    const entry = lock.skills[key] as SkillsLockEntry;
    const reference = referenceOf(entry, context.project);
    const ref = pin ? (entry.skillbox?.pinned ?? entry.ref) : entry.ref;
    const group = `${reference}\0${ref ?? ''}`;
    const existing = groups.get(group);
    if (existing === undefined) groups.set(group, { reference, ref, keys: [key] });
    else existing.keys.push(key);
  }
  const fetched = new Map<string, { resolved: ResolvedSource; skill: FetchedSkill }>();
  for (const { reference, ref, keys: wanted } of groups.values()) {
    const { resolved, skills } = await fetchSkills(context, reference, {
      skills: wanted,
      ...(ref === undefined ? {} : { ref }),
    });
    for (const key of wanted) {
      // A source that is one skill (a folder, a package) may have renamed it; it is still that entry.
      const skill =
        skills.find((candidate) => candidate.name === key) ??
        (wanted.length === 1 && skills.length === 1 ? skills[0] : undefined);
      if (skill === undefined)
        throw new SkillInstallError(`${withoutUrlCredentials(reference)} no longer has a skill named ${key}`);
      fetched.set(key, { resolved, skill: skill.name === key ? skill : { ...skill, name: key } });
    }
  }
  return fetched;
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
  const changed: InstallItem[] = [];
  const keys = namesOrAll(lock, names, context.lockFile);
  const fetched = await refetchAll(context, lock, keys, false);
  for (const name of keys) {
    const entry = lock.skills[name] as SkillsLockEntry;
    const { resolved, skill } = fetched.get(name) as { resolved: ResolvedSource; skill: FetchedSkill };
    if (matchesEntry(skill, entry) && resolved.pinned === entry.skillbox?.pinned) continue;
    changed.push({
      skill,
      entry: { ...lockEntryFor(skill, resolved, context.project), source: entry.source },
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
  const items: InstallItem[] = [];
  const mismatches: string[] = [];
  const keys = Object.keys(lock.skills).sort();
  const fetched = await refetchAll(context, lock, keys, options.frozen === true);
  for (const name of keys) {
    const entry = lock.skills[name] as SkillsLockEntry;
    const { resolved, skill } = fetched.get(name) as { resolved: ResolvedSource; skill: FetchedSkill };
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
        entry: { ...lockEntryFor(skill, resolved, context.project), source: entry.source },
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
    options.frozen === true,
  );
  return writeInstall(context, items);
}

/**
 * `skillbox remove NAME`: deletes the installed folder, the agent links skillbox made for it and
 * its lock entry. NAME is the lock key or the folder name; it must be one folder name, never a path.
 */
export async function removeSkill(name: string, options: InstallerOptions): Promise<RemovedSkill> {
  const context = contextOf(options);
  if (!isOneFolderName(name))
    throw new SkillInstallError(`cannot remove ${JSON.stringify(name)}: give a skill name, not a path`);
  return locked(context, async () => {
    await refuseLinkOutOfProject(context.project, context.target, 'nothing was removed');
    const lock = await readSkillsLock(context.lockFile);
    const key = lock === undefined ? undefined : lock.skills[name] !== undefined ? name : keyOfFolder(lock, name);
    const folder = key === undefined ? name : skillsCliFolderName(key);
    const path = join(context.target, folder);
    if (
      key === undefined &&
      !(await stat(path).then(
        () => true,
        () => false,
      ))
    )
      throw new SkillInstallError(`no skill named ${name} in ${context.target} or ${context.lockFile}`);
    const entry = key === undefined ? undefined : lock?.skills[key];
    const keptLinks = await removeAgentLinks(context.project, path, entry?.skillbox?.links);
    if (lock !== undefined && key !== undefined) {
      const { [key]: _removed, ...rest } = lock.skills;
      await writeSkillsLock(context.lockFile, { ...lock, skills: rest });
    }
    await removeSkillFolder(context.target, folder);
    return { name: key ?? name, path, keptLinks };
  });
}

async function isDirectory(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined))?.isDirectory() === true;
}

/**
 * `skillbox verify`: every difference between the installed folders (and the agent links the lock
 * records) and the lock, per skill, and the skill folders in the target the lock does not list.
 */
export async function verifyInstalled(
  options: Omit<InstallerOptions, 'registry'> & { registry?: SourceRegistry },
): Promise<VerifyReport> {
  const context = contextOf(options as InstallerOptions);
  await refuseLinkOutOfProject(context.project, context.target, 'nothing was verified');
  const lock = await readLockOrFail(context);
  // Without --to, a project lock's skills are looked for where any agent installs them (the
  // `skills` CLI's `-a claude-code` puts them in .claude/skills), the rule `list --locked` follows.
  const candidates =
    options.target === undefined && options.lockFile === undefined
      ? [context.target, ...(await lockedSkillFolders(context.project)).filter((folder) => folder !== context.target)]
      : [context.target];
  const searched = new Set([context.target]);
  const skills: { name: string; differences: string[] }[] = [];
  for (const name of Object.keys(lock.skills).sort()) {
    const entry = lock.skills[name] as SkillsLockEntry;
    // A key that is exactly the folder name of another key's sanitised form owns that folder, and
    // this key is then looked for under its own name, which must be one folder name: a key such as
    // `../../../x` beside `x` would lead verify to walk and hash a folder outside the project.
    const sanitised = skillsCliFolderName(name);
    const folder = lock.skills[sanitised] === undefined || sanitised === name ? sanitised : name;
    if (folder !== sanitised && !isOneFolderName(folder))
      throw new SkillInstallError(
        `${context.lockFile}: the key ${JSON.stringify(name)} is not one folder name (it holds a separator or is a dot name), and the folder its name gives, ${JSON.stringify(sanitised)}, belongs to the key ${JSON.stringify(sanitised)}; fix or remove that entry; nothing was verified`,
      );
    let where = context.target;
    for (const candidate of candidates)
      if (await isDirectory(join(candidate, folder))) {
        where = candidate;
        break;
      }
    searched.add(where);
    const path = join(where, folder);
    skills.push({
      name,
      differences: [
        ...(await compareInstalledSkill(path, entry)),
        ...(await agentLinkProblems(context.project, path, entry.skillbox?.links)),
      ],
    });
  }
  const unlisted: string[] = [];
  for (const target of searched) {
    const folders = await readdir(target, { withFileTypes: true }).catch(() => []);
    for (const folder of folders)
      if (folder.isDirectory() && lockEntryOfFolder(lock, folder.name) === undefined)
        if (
          await stat(join(target, folder.name, 'SKILL.md')).then(
            () => true,
            () => false,
          )
        )
          unlisted.push(target === context.target ? folder.name : join(target, folder.name));
  }
  return { lockFile: context.lockFile, skills, unlisted: unlisted.sort() };
}
