import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, readdir, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SkillContext, Skill, SkillRepository } from '../repository/types.js';
import { SkillStagingError } from './errors.js';
import { copyScannedEntries, digestFiles, digestFolder, scanFolder, type FolderEntry } from './folder-snapshot.js';
import type { StagedSkillRecord } from './workspace-metadata.js';
import { ensureDirectoryInside, workspaceFolders } from './workspace-paths.js';

export type StageMode = 'copy' | 'link';

/** What staging did for one skill. */
export interface StagedSkill {
  name: string;
  /** Workspace-relative folder of the working copy: `skills/<name>`. */
  relativePath: string;
  /** Host path of the working copy. */
  hostPath: string;
  digest: string;
  /** False when the working copy was already current and nothing was written. */
  staged: boolean;
  warnings: string[];
}

export interface StageSkillRequest {
  root: string;
  skill: Skill;
  repository: SkillRepository;
  context?: SkillContext;
  mode: StageMode;
  previous?: StagedSkillRecord;
}

/** Links every working copy holds, so paths written in SKILL.md work from the skill folder. */
const workingCopyLinks: ReadonlyArray<[string, string]> = [
  ['out', '../../out'],
  ['work', '../../work'],
  ['inputs', '../../work/inputs'],
];

/**
 * Skill names become folder names; anything that could climb, hide or collide is refused before a
 * byte is written (the Go seed checks only after staging, too late to stop `../x`).
 */
export function assertStageableName(name: string): void {
  const why =
    name.length === 0 ? 'the name is empty'
    : name.length > 255 ? 'the name is longer than 255 characters'
    : /[/\\\0]/.test(name) ? 'the name holds a path separator or NUL byte'
    : name.startsWith('.') ? 'the name starts with a dot'
    : undefined;
  if (why !== undefined) throw new SkillStagingError(name, why);
}

/**
 * Stages one skill into `skills/<name>/`. The cheap manifest (sizes, times, modes) is compared first;
 * only when it changed is the content digest computed, and only when that changed is the copy
 * rebuilt. A rebuild is written beside the old copy and swapped in, so a failure leaves the previous
 * copy untouched. The source is only ever read.
 */
export async function stageSkill(request: StageSkillRequest): Promise<{ staged: StagedSkill; record: StagedSkillRecord }> {
  const { root, skill, mode, previous } = request;
  assertStageableName(skill.name);
  const relativePath = `${workspaceFolders.skills}/${skill.name}`;
  const hostPath = path.join(root, relativePath);
  const intact = previous !== undefined && previous.mode === mode && (await workingCopyIntact(hostPath));
  const result = (digest: string, staged: boolean, warnings: string[], manifest?: string) => ({
    staged: { name: skill.name, relativePath, hostPath, digest, staged, warnings },
    record: { name: skill.name, rel_path: relativePath, digest, ...(manifest === undefined ? {} : { manifest }), mode, staged_at: staged || previous === undefined ? new Date().toISOString() : previous.staged_at },
  });

  if (skill.path === undefined) {
    if (mode === 'link') throw new SkillStagingError(skill.name, 'a skill defined in code has no folder to link; use copy staging');
    const files = await readSkillFiles(request);
    const digest = digestFiles(files);
    if (intact && previous.digest === digest) return result(digest, false, []);
    await swapIn(root, skill.name, async (temporary) => {
      for (const file of files) {
        const target = path.join(temporary, ...file.path.split('/'));
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, file.data, { mode: 0o644 });
      }
    });
    return result(digest, true, []);
  }

  const scan = await scanFolder(skill.path).catch((error: unknown) => {
    throw new SkillStagingError(skill.name, `cannot read ${skill.path}: ${(error as Error).message}`, { cause: error });
  });
  if (intact && previous.manifest === scan.manifest) return result(previous.digest, false, scan.warnings, scan.manifest);
  const source = skill.path;
  const build = () => swapIn(root, skill.name, (temporary) => (mode === 'copy' ? copyScannedEntries(source, scan.entries, temporary) : linkTopLevel(source, scan.entries, temporary)));
  if (intact) {
    const digest = await digestFolder(source, scan.entries);
    if (previous.digest === digest) return result(digest, false, scan.warnings, scan.manifest);
    await build();
    return result(digest, true, scan.warnings, scan.manifest);
  }
  // Nothing usable to compare with: hash while copying instead of before.
  const [digest] = await Promise.all([digestFolder(source, scan.entries), build()]);
  return result(digest, true, scan.warnings, scan.manifest);
}

async function readSkillFiles(request: StageSkillRequest): Promise<Array<{ path: string; data: Buffer }>> {
  const { repository, skill, context } = request;
  const names = await repository.listFiles(skill.name, context);
  const files: Array<{ path: string; data: Buffer }> = [];
  for (const name of [...names].sort()) {
    const first = name.split('/')[0] ?? '';
    if (workingCopyLinks.some(([link]) => link === first)) continue;
    if (name.split('/').some((part) => part === '' || part === '.' || part === '..')) {
      throw new SkillStagingError(skill.name, `the repository listed an unsafe file path "${name}"`);
    }
    files.push({ path: name, data: await repository.readFile(skill.name, name, context) });
  }
  return files;
}

async function workingCopyIntact(hostPath: string): Promise<boolean> {
  try {
    if (!(await lstat(hostPath)).isDirectory()) return false;
    for (const [link] of workingCopyLinks) {
      if (!(await lstat(path.join(hostPath, link))).isSymbolicLink()) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds the new copy in a sibling folder, adds the workspace links, then replaces the old copy by
 * two renames. The folder `skills/` is checked first so a link planted there cannot redirect writes.
 */
async function swapIn(root: string, name: string, fill: (temporary: string) => Promise<void>): Promise<void> {
  const skillsDir = await ensureDirectoryInside(root, workspaceFolders.skills);
  const suffix = randomBytes(6).toString('hex');
  const temporary = path.join(skillsDir, `.staging-${name}-${suffix}`);
  const retired = path.join(skillsDir, `.retired-${name}-${suffix}`);
  const target = path.join(skillsDir, name);
  await mkdir(temporary, { mode: 0o755 });
  try {
    await fill(temporary);
    for (const [link, destination] of workingCopyLinks) {
      await rm(path.join(temporary, link), { recursive: true, force: true });
      await symlink(destination, path.join(temporary, link));
    }
    const hadPrevious = await lstat(target).then(() => true, () => false);
    if (hadPrevious) await rename(target, retired);
    await rename(temporary, target);
    if (hadPrevious) await removeTree(retired);
  } catch (error) {
    await removeTree(temporary);
    throw error;
  }
}

/** Removes a tree the sandboxed process may have made read-only. */
async function removeTree(target: string): Promise<void> {
  try {
    await rm(target, { recursive: true, force: true });
  } catch {
    await makeWritable(target);
    await rm(target, { recursive: true, force: true });
  }
}

async function makeWritable(target: string): Promise<void> {
  const stats = await lstat(target).catch(() => undefined);
  if (stats === undefined || stats.isSymbolicLink()) return;
  await chmod(target, (stats.mode & 0o777) | 0o700).catch(() => undefined);
  if (!stats.isDirectory()) return;
  for (const name of await readdir(target).catch(() => [] as string[])) await makeWritable(path.join(target, name));
}

/**
 * Link staging: each top-level entry of the copy is a link to the source's entry, so staging costs
 * nothing whatever the size. The process can then write through to the source, which is why it is
 * an explicit option and only for runtimes that see host paths.
 */
async function linkTopLevel(source: string, entries: readonly FolderEntry[], destination: string): Promise<void> {
  const realSource = await realpath(source);
  for (const entry of entries) {
    if (entry.path.includes('/')) continue;
    await symlink(path.join(realSource, entry.path), path.join(destination, entry.path));
  }
}
