// The links (or copies) of an installed skill in other agents' skill folders, `--link claude-code`.
// Written here rather than with a library because every step is a safety decision: the link's
// folder must stay inside the project even through links the user made, and a path the user owns
// (a file, a folder, a link pointing elsewhere) is never followed, replaced or deleted.
import { randomBytes } from 'node:crypto';
import { cp, lstat, mkdir, readlink, realpath, rename, rm, symlink } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { agentSkillFolders, linkableAgents } from './agent-skill-folders.js';
import { SkillInstallError } from './install-errors.js';
import { isInside, realPathAllowingMissing } from './project-confinement.js';

/** How a skill appears in an agent's folder: a relative symbolic link, or a copy where links cannot be made. */
export type AgentLinkMode = 'symlink' | 'copy';

/** One agent folder entry of an installed skill. */
export interface AgentLink {
  /** The agent's name as the `skills` CLI spells it (`claude-code`). */
  readonly agent: string;
  /** The absolute path of the link or copy (`<project>/.claude/skills/pdf`). */
  readonly path: string;
  readonly mode: AgentLinkMode;
}

/** Throws SkillInstallError for an agent name the `skills` CLI does not know (or that cannot be linked). */
export function checkAgentNames(agents: readonly string[]): void {
  const unknown = agents.filter((agent) => !Object.hasOwn(agentSkillFolders, agent));
  if (unknown.length > 0)
    throw new SkillInstallError(
      `unknown agent ${unknown.map((agent) => JSON.stringify(agent)).join(', ')} for --link; known agents (the skills CLI's names): ${linkableAgents().join(', ')}`,
    );
}

/**
 * The path of `agent`'s entry for the installed folder `folder`, checked to stay inside `project`
 * both as written and after following every link that already exists on the way (a `.claude`
 * that is a link to `/etc` is refused, naming it).
 */
async function confinedLinkPath(project: string, agent: string, folder: string): Promise<string> {
  const relativeFolder = agentSkillFolders[agent] as string;
  const path = join(project, ...relativeFolder.split('/'), folder);
  if (folder === '' || folder.includes('/') || folder.includes('\\') || folder === '.' || folder === '..')
    throw new SkillInstallError(`cannot link ${JSON.stringify(folder)}: not one folder name`);
  if (!isInside(project, path) || dirname(path) === project)
    throw new SkillInstallError(`${path} is outside the project ${project}; nothing was linked`);
  const realProject = await realpath(project);
  const realParent = await realPathAllowingMissing(dirname(path));
  if (!isInside(realProject, realParent))
    throw new SkillInstallError(
      `${dirname(path)} leads outside the project ${project} (to ${realParent}) through a link; nothing was linked`,
    );
  return path;
}

/** What is at a link path now: nothing, skillbox's own link or copy of `installed`, or something the user owns. */
async function occupantOf(
  path: string,
  installed: string,
  previousMode: AgentLinkMode | undefined,
): Promise<'free' | 'our-symlink' | 'our-copy' | string> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'free';
    throw error;
  }
  if (stats.isSymbolicLink()) {
    const pointsTo = resolve(await realPathAllowingMissing(dirname(path)), await readlink(path));
    if (pointsTo === (await realPathAllowingMissing(installed))) return 'our-symlink';
    return `a link to ${pointsTo}`;
  }
  if (stats.isDirectory()) return previousMode === 'copy' ? 'our-copy' : 'a folder skillbox did not make';
  return 'a file';
}

/** A set of agent entries written for one install; `commit` keeps them, `rollback` restores what was there. */
export interface AppliedLinks {
  readonly links: readonly AgentLink[];
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/**
 * Checks, before anything is written, that every wanted agent entry of the skill installed at
 * `installed` can be made: confined to `project`, and either free or skillbox's own. Throws
 * SkillInstallError naming the path otherwise. Agents whose folder is the install folder itself
 * need no entry and are dropped.
 */
export async function checkAgentLinks(
  project: string,
  installed: string,
  wanted: Readonly<Record<string, AgentLinkMode>>,
  previous: Readonly<Record<string, AgentLinkMode>> | undefined,
): Promise<AgentLink[]> {
  checkAgentNames(Object.keys(wanted));
  const folder = basename(installed);
  const planned: AgentLink[] = [];
  const seen = new Set<string>();
  const realInstalled = await realPathAllowingMissing(installed);
  for (const agent of Object.keys(wanted).sort()) {
    const path = await confinedLinkPath(project, agent, folder);
    // The agent reads the install folder itself (`codex` and `.agents/skills`): nothing to link.
    if (join(await realPathAllowingMissing(dirname(path)), folder) === realInstalled) continue;
    // Two agents sharing one folder (qoder and qoder-cn) share one entry.
    const mode = wanted[agent] as AgentLinkMode;
    if (seen.has(path)) {
      planned.push({ agent, path, mode: planned.find((link) => link.path === path)?.mode ?? mode });
      continue;
    }
    seen.add(path);
    const occupant = await occupantOf(path, installed, previous?.[agent]);
    if (occupant !== 'free' && occupant !== 'our-symlink' && occupant !== 'our-copy')
      throw new SkillInstallError(
        `${path} is ${occupant}; skillbox will not replace it. Move it away (or leave out --link ${agent}); nothing was installed`,
      );
    planned.push({ agent, path, mode });
  }
  return planned;
}

async function writeCopy(installed: string, path: string): Promise<string> {
  const fresh = join(dirname(path), `.skillbox-link-${randomBytes(4).toString('hex')}-${basename(path)}`);
  await cp(installed, fresh, { recursive: true, verbatimSymlinks: true, preserveTimestamps: false });
  return fresh;
}

/**
 * Makes the checked entries for the skill now installed at `installed`: a relative symbolic link
 * (relative so the project can move or be checked out elsewhere), or a copy when asked or when the
 * file system refuses links. An existing own link is kept; an own copy is replaced. Each entry is
 * checked again right before it is made, so a path the user filled since the check is refused.
 */
export async function applyAgentLinks(
  installed: string,
  planned: readonly AgentLink[],
  previous: Readonly<Record<string, AgentLinkMode>> | undefined,
): Promise<AppliedLinks> {
  const made: string[] = [];
  const replaced: { path: string; aside: string }[] = [];
  const links: AgentLink[] = [];
  const rollback = async (): Promise<void> => {
    for (const path of made.reverse()) await rm(path, { recursive: true, force: true });
    for (const { path, aside } of replaced.reverse()) await rename(aside, path);
    made.length = 0;
    replaced.length = 0;
  };
  const done = new Map<string, AgentLinkMode>();
  try {
    for (const link of planned) {
      const already = done.get(link.path);
      if (already !== undefined) {
        links.push({ ...link, mode: already });
        continue;
      }
      await mkdir(dirname(link.path), { recursive: true });
      const occupant = await occupantOf(link.path, installed, previous?.[link.agent]);
      if (occupant === 'our-symlink' && link.mode === 'symlink') {
        done.set(link.path, 'symlink');
        links.push(link);
        continue;
      }
      if (occupant !== 'free' && occupant !== 'our-copy' && occupant !== 'our-symlink')
        throw new SkillInstallError(`${link.path} is ${occupant}; skillbox will not replace it; nothing was installed`);
      let mode = link.mode;
      let fresh: string | undefined;
      if (mode === 'symlink') {
        const pointer = relative(await realpath(dirname(link.path)), await realpath(installed));
        // A free path gets the link itself, which fails rather than replace anything that appeared
        // there since the check; an own copy is replaced through a link made beside it.
        const at =
          occupant === 'free'
            ? link.path
            : join(dirname(link.path), `.skillbox-link-${randomBytes(4).toString('hex')}-${basename(link.path)}`);
        try {
          await symlink(pointer, at, 'dir');
          if (occupant === 'free') {
            made.push(link.path);
            done.set(link.path, 'symlink');
            links.push(link);
            continue;
          }
          fresh = at;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST')
            throw new SkillInstallError(`${link.path} appeared while installing; skillbox will not replace it`);
          // A file system without links (FAT, some network and Windows folders): a copy reads the same.
          mode = 'copy';
        }
      }
      if (fresh === undefined) fresh = await writeCopy(installed, link.path);
      if (occupant !== 'free') {
        const aside = join(
          dirname(link.path),
          `.skillbox-unlink-${randomBytes(4).toString('hex')}-${basename(link.path)}`,
        );
        await rename(link.path, aside);
        replaced.push({ path: link.path, aside });
      }
      try {
        await rename(fresh, link.path);
      } catch (error) {
        await rm(fresh, { recursive: true, force: true });
        throw error;
      }
      made.push(link.path);
      done.set(link.path, mode);
      links.push({ ...link, mode });
    }
  } catch (error) {
    await rollback();
    throw error;
  }
  return {
    links,
    commit: async () => {
      for (const { aside } of replaced) await rm(aside, { recursive: true, force: true });
    },
    rollback,
  };
}

/**
 * Deletes the recorded agent entries of the skill installed at `installed`: a link only while it
 * still points at the skill, a copy only while it is still a plain folder. Anything else at the
 * path belongs to the user now and is left alone; those paths are returned with why.
 */
export async function removeAgentLinks(
  project: string,
  installed: string,
  recorded: Readonly<Record<string, AgentLinkMode>> | undefined,
): Promise<string[]> {
  const kept: string[] = [];
  if (recorded === undefined) return kept;
  const known = Object.keys(recorded).filter((agent) => Object.hasOwn(agentSkillFolders, agent));
  for (const agent of Object.keys(recorded).filter((agent) => !known.includes(agent)))
    kept.push(`the link for unknown agent ${JSON.stringify(agent)} (not removed)`);
  for (const agent of known.sort()) {
    let path: string;
    try {
      path = await confinedLinkPath(project, agent, basename(installed));
    } catch (error) {
      kept.push((error as Error).message);
      continue;
    }
    const occupant = await occupantOf(path, installed, recorded[agent]);
    if (occupant === 'free') continue;
    if (occupant === 'our-symlink' || occupant === 'our-copy') {
      const doomed = join(dirname(path), `.skillbox-removing-${randomBytes(4).toString('hex')}-${basename(path)}`);
      await rename(path, doomed);
      await rm(doomed, { recursive: true, force: true });
    } else kept.push(`${path} (${occupant}; left as it is)`);
  }
  return kept;
}

/**
 * How the recorded agent entries of the skill installed at `installed` differ from the lock: one
 * line per entry that is missing or is no longer skillbox's link or copy (for `verify`).
 */
export async function agentLinkProblems(
  project: string,
  installed: string,
  recorded: Readonly<Record<string, AgentLinkMode>> | undefined,
): Promise<string[]> {
  const problems: string[] = [];
  for (const agent of Object.keys(recorded ?? {}).sort()) {
    if (!Object.hasOwn(agentSkillFolders, agent)) {
      problems.push(`links: unknown agent ${JSON.stringify(agent)}`);
      continue;
    }
    let path: string;
    try {
      path = await confinedLinkPath(project, agent, basename(installed));
    } catch (error) {
      problems.push((error as Error).message);
      continue;
    }
    const mode = recorded?.[agent];
    const occupant = await occupantOf(path, installed, mode);
    if (occupant === 'free') problems.push(`${path}: the ${mode === 'copy' ? 'copy' : 'link'} for ${agent} is missing`);
    else if (occupant !== (mode === 'copy' ? 'our-copy' : 'our-symlink'))
      problems.push(`${path}: is ${occupant === 'our-symlink' ? 'a link' : occupant}, the lock records a ${mode}`);
  }
  return problems;
}
