import { lstat, mkdir, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Skill, SkillContext, SkillRepository } from '../repository/types.js';
import { withFolderInside } from './anchored-folder.js';
import { SkillStagingError } from './errors.js';
import {
  copyAndDigest,
  copyScannedEntries,
  digestFiles,
  digestFolder,
  type FolderEntry,
  scanFolder,
} from './folder-snapshot.js';
import { newBuildPath } from './host-build-area.js';
import { removeTree } from './remove-tree.js';
import type { StagedSkillRecord } from './workspace-metadata.js';
import { workspaceFolders } from './workspace-paths.js';

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
  /**
   * Inode of the working copy when this workspace last staged or checked it. A different one means
   * someone else replaced the folder since (another process on the same workspace, or the command),
   * so `previous` no longer describes it and the copy is rebuilt.
   */
  expectedCopyInode?: number;
}

export interface StageSkillOutcome {
  staged: StagedSkill;
  record: StagedSkillRecord;
  /** Inode of the working copy as staging left it. */
  copyInode: number;
}

/** Links every working copy holds, so paths written in SKILL.md work from the skill folder. */
const workingCopyLinks: ReadonlyArray<[string, string]> = [
  ['out', '../../out'],
  ['work', '../../work'],
  ['inputs', '../../work/inputs'],
];

/**
 * Skill names become folder names; anything that could climb, hide or collide is refused before a
 * byte is written (a check after staging would be too late to stop `../x`).
 */
export function assertStageableName(name: string): void {
  const why =
    name.length === 0
      ? 'the name is empty'
      : name.length > 255
        ? 'the name is longer than 255 characters'
        : /[/\\\0]/.test(name)
          ? 'the name holds a path separator or NUL byte'
          : name.startsWith('.')
            ? 'the name starts with a dot'
            : undefined;
  if (why !== undefined) throw new SkillStagingError(name, why);
}

/**
 * Stages one skill into `skills/<name>/`. The cheap manifest (sizes, times, modes) is compared first;
 * only when it changed is the content digest computed, and only when that changed is the copy
 * rebuilt. A rebuild is written beside the old copy and swapped in, so a failure leaves the previous
 * copy untouched. The source is only ever read.
 */
export async function stageSkill(request: StageSkillRequest): Promise<StageSkillOutcome> {
  const { root, skill, mode, previous } = request;
  assertStageableName(skill.name);
  const relativePath = `${workspaceFolders.skills}/${skill.name}`;
  const hostPath = path.join(root, relativePath);
  const currentInode = previous !== undefined && previous.mode === mode ? await workingCopyInode(hostPath) : undefined;
  const intact =
    previous !== undefined &&
    currentInode !== undefined &&
    (request.expectedCopyInode === undefined || request.expectedCopyInode === currentInode);
  const result = (
    digest: string,
    staged: boolean,
    copyInode: number,
    warnings: string[],
    manifest?: string,
  ): StageSkillOutcome => {
    return {
      staged: { name: skill.name, relativePath, hostPath, digest, staged, warnings },
      record: {
        name: skill.name,
        rel_path: relativePath,
        digest,
        ...(manifest === undefined ? {} : { manifest }),
        mode,
        staged_at: staged || previous === undefined ? new Date().toISOString() : previous.staged_at,
      },
      copyInode,
    };
  };

  if (skill.path === undefined) {
    if (mode === 'link')
      throw new SkillStagingError(skill.name, 'a skill defined in code has no folder to link; use copy staging');
    const files = await readSkillFiles(request);
    const digest = digestFiles(files);
    if (intact && previous.digest === digest) return result(digest, false, currentInode, []);
    const copyInode = await swapIn(root, skill.name, async (temporary) => {
      for (const file of files) {
        const target = path.join(temporary, ...file.path.split('/'));
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, file.data, { mode: 0o644 });
      }
    });
    return result(digest, true, copyInode, []);
  }

  const scan = await scanFolder(skill.path).catch((error: unknown) => {
    throw new SkillStagingError(skill.name, `cannot read ${skill.path}: ${(error as Error).message}`, { cause: error });
  });
  if (intact && previous.manifest === scan.manifest)
    return result(previous.digest, false, currentInode, scan.warnings, scan.manifest);
  const source = skill.path;
  const build = () =>
    swapIn(root, skill.name, (temporary) =>
      mode === 'copy'
        ? copyScannedEntries(source, scan.entries, temporary)
        : linkTopLevel(source, scan.entries, temporary),
    );
  if (intact) {
    const digest = await digestFolder(source, scan.entries);
    if (previous.digest === digest) return result(digest, false, currentInode, scan.warnings, scan.manifest);
    return result(digest, true, await build(), scan.warnings, scan.manifest);
  }
  // Nothing usable to compare with: hash while copying, reading every file once.
  if (mode === 'copy') {
    let digest = '';
    const copyInode = await swapIn(root, skill.name, async (temporary) => {
      digest = await copyAndDigest(source, scan.entries, temporary);
    });
    return result(digest, true, copyInode, scan.warnings, scan.manifest);
  }
  const [digest, copyInode] = await Promise.all([digestFolder(source, scan.entries), build()]);
  return result(digest, true, copyInode, scan.warnings, scan.manifest);
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

/** The working copy's inode when it is a folder that still holds its workspace links; else undefined. */
async function workingCopyInode(hostPath: string): Promise<number | undefined> {
  try {
    const [folder, ...links] = await Promise.all([
      lstat(hostPath),
      ...workingCopyLinks.map(([link]) => lstat(path.join(hostPath, link))),
    ]);
    return folder.isDirectory() && links.every((link) => link.isSymbolicLink()) ? folder.ino : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Builds the new copy in the host build area, where no command can reach it, adds the workspace
 * links, then replaces the old copy by two renames made through `skills/`, opened and checked first
 * (anchored-folder.ts), so a link planted there at any moment cannot redirect them. The old copy is
 * moved out of the workspace before it is removed. Returns the new copy's inode (a rename keeps it).
 */
async function swapIn(root: string, name: string, fill: (temporary: string) => Promise<void>): Promise<number> {
  const temporary = await newBuildPath(root);
  let retired: string | undefined;
  try {
    await mkdir(temporary, { mode: 0o755 });
    const { ino } = await lstat(temporary);
    await fill(temporary);
    for (const [link, destination] of workingCopyLinks) {
      await rm(path.join(temporary, link), { recursive: true, force: true });
      await symlink(destination, path.join(temporary, link));
    }
    await withFolderInside(root, workspaceFolders.skills, { create: true }, async (skills) => {
      const target = skills.entry(name);
      if (
        await lstat(target).then(
          () => true,
          () => false,
        )
      ) {
        retired = await newBuildPath(root);
        await rename(target, retired);
      }
      await rename(temporary, target);
    });
    return ino;
  } finally {
    await removeTree(temporary);
    if (retired !== undefined) await removeTree(retired);
  }
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
