import path from 'node:path';
import type { Skill, SkillContext, SkillRepository } from '../repository/types.js';
import { hostFileEntries } from '../runtime/host-file-entries.js';
import type { TreeEntry, WorkspaceFiles } from '../runtime/workspace-files.js';
import { SkillStagingError } from './errors.js';
import { digestFiles, type FolderEntry, scanFolder } from './folder-snapshot.js';
import type { StagedSkillRecord } from './workspace-metadata.js';
import { workspaceFolders } from './workspace-paths.js';

export type StageMode = 'copy' | 'link';

/** What staging did for one skill. */
export interface StagedSkill {
  name: string;
  /** Workspace-relative folder of the working copy: `skills/<name>`. */
  relativePath: string;
  /**
   * What was staged: for a skill folder, its manifest (sha256 over paths, modes, link targets, and
   * each file's size, modification and status-change times and inode); for a skill defined in
   * code, sha256 over its paths and contents. It changes whenever the staged files may have.
   */
  digest: string;
  /** False when the working copy was already current and nothing was written. */
  staged: boolean;
  warnings: string[];
}

export interface StageSkillRequest {
  /** The workspace's files, through its runtime. */
  files: WorkspaceFiles;
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
  const why = unstageableBecause(name);
  if (why !== undefined) throw new SkillStagingError(name, why);
}

/** Whether `assertStageableName` accepts `name`. */
export function isStageableName(name: string): boolean {
  return unstageableBecause(name) === undefined;
}

function unstageableBecause(name: string): string | undefined {
  return name.length === 0
    ? 'the name is empty'
    : name.length > 255
      ? 'the name is longer than 255 characters'
      : /[/\\\0]/.test(name)
        ? 'the name holds a path separator or NUL byte'
        : name.startsWith('.')
          ? 'the name starts with a dot'
          : undefined;
}

/**
 * Stages one skill into `skills/<name>/`. A skill folder's manifest (sizes, times, inodes, modes; no
 * byte read) is compared with the one recorded when the copy was placed, and the copy is rebuilt
 * when it changed. A rebuild is written beside the old copy and swapped in, so a failure leaves the
 * previous copy untouched. The source is only ever read.
 */
export async function stageSkill(request: StageSkillRequest): Promise<StageSkillOutcome> {
  const { files, skill, mode, previous } = request;
  assertStageableName(skill.name);
  const relativePath = `${workspaceFolders.skills}/${skill.name}`;
  const currentInode =
    previous !== undefined && previous.mode === mode ? await workingCopyInode(files, relativePath) : undefined;
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
      staged: { name: skill.name, relativePath, digest, staged, warnings },
      record: {
        name: skill.name,
        rel_path: relativePath,
        digest,
        ...(manifest === undefined ? {} : { manifest }),
        mode,
        staged_at: staged || previous === undefined ? new Date().toISOString() : previous.staged_at,
        copy_inode: copyInode,
      },
      copyInode,
    };
  };

  if (skill.path === undefined) {
    if (mode === 'link')
      throw new SkillStagingError(skill.name, 'a skill defined in code has no folder to link; use copy staging');
    const skillFiles = await readSkillFiles(request);
    const digest = digestFiles(skillFiles);
    if (intact && previous.digest === digest) return result(digest, false, currentInode, []);
    const copyInode = await placeCopy(
      files,
      relativePath,
      skillFiles.map((file) => ({ kind: 'file', path: file.path, mode: 0o644, content: { data: file.data } })),
    );
    return result(digest, true, copyInode.inode, []);
  }

  const scan = await scanFolder(skill.path).catch((error: unknown) => {
    throw new SkillStagingError(skill.name, `cannot read ${skill.path}: ${(error as Error).message}`, { cause: error });
  });
  // The manifest is the whole change check: no byte is read to decide. Hashing the content to
  // spare a copy when only times changed cost more than the copy (the kernel's copy_file_range or
  // a reflink), and made the first staging of a large skill read every byte in JavaScript.
  if (intact && previous.manifest === scan.manifest)
    return result(scan.manifest, false, currentInode, scan.warnings, scan.manifest);
  const entries = mode === 'copy' ? copiedEntries(scan.root, scan.entries) : linkedEntries(scan.root, scan.entries);
  const placed = await placeCopy(files, relativePath, entries);
  return result(scan.manifest, true, placed.inode, scan.warnings, scan.manifest);
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
async function workingCopyInode(files: WorkspaceFiles, relativePath: string): Promise<number | undefined> {
  const [folder, ...links] = await Promise.all([
    files.inspect(relativePath),
    ...workingCopyLinks.map(([link]) => files.inspect(`${relativePath}/${link}`)),
  ]);
  return folder?.kind === 'directory' && links.every((link) => link?.kind === 'link') ? folder.inode : undefined;
}

/**
 * Places a new working copy with its workspace links in one step (`WorkspaceFiles.put`: built
 * where no command can reach it, then swapped in), so a failure leaves the previous copy untouched.
 */
function placeCopy(
  files: WorkspaceFiles,
  relativePath: string,
  entries: readonly TreeEntry[],
): Promise<{ inode: number }> {
  const links: TreeEntry[] = workingCopyLinks.map(([link, target]) => ({ kind: 'link', path: link, target }));
  return files.put(relativePath, { kind: 'directory', mode: 0o755, entries: [...entries, ...links] });
}

/**
 * Copy staging: the scanned files, named under the real folder the scan walked (not resolved again,
 * which a folder above the skill swapped for a link since would redirect), each copied only when
 * the file the host opens lies inside that folder. A folder on a file's path swapped for a link
 * since the scan (by whoever can write to the source, such as a command of a session that stages
 * it by link) would otherwise make the host copy a file from wherever the link leads into this
 * session's workspace.
 */
function copiedEntries(realSource: string, entries: readonly FolderEntry[]): TreeEntry[] {
  return hostFileEntries(realSource, entries, realSource);
}

/**
 * Link staging: each top-level entry of the copy is a link to the source's entry, so staging costs
 * nothing whatever the size. The process can then write through to the source, which is why it is
 * an explicit option and only for runtimes that see host paths.
 */
function linkedEntries(realSource: string, entries: readonly FolderEntry[]): TreeEntry[] {
  return entries
    .filter((entry) => !entry.path.includes('/'))
    .map((entry) => ({ kind: 'link', path: entry.path, target: path.join(realSource, entry.path) }));
}
