import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SkillContext, SkillRepository } from '../repository/types.js';
import { parseArtifactReference, type ArtifactStore } from './artifact-store.js';
import { WorkspaceInputError, WorkspacePathError } from './errors.js';
import { copyScannedEntries, scanFolder } from './folder-snapshot.js';
import { ensureDirectoryInside, metadataFileName, realPathInside, toWorkspaceRelative, workspaceFolders, type WorkspacePathContext } from './workspace-paths.js';

/** One input to place in the workspace before a command runs. */
export interface InputSpec {
  /**
   * `host://<path>` or a plain host path, `workspace://<path>`, `skill://<name>/<path>` or
   * `artifact://<name>[@<version>]`.
   */
  from: string;
  /** Workspace-relative destination; default `work/inputs/<base name>`. `inputs/x` means `work/inputs/x`. */
  to?: string;
  /** `copy` (default) or `link`. Links to the host only work with a runtime that sees host paths. */
  mode?: 'copy' | 'link';
}

export interface StagedInput {
  from: string;
  /** Workspace-relative destination. */
  to: string;
  mode: 'copy' | 'link';
  /** Artifact version staged, for `artifact://` inputs. */
  version?: number;
  /** True when `from` is a host path. */
  host?: boolean;
}

/**
 * How an input's source is recorded in metadata.json, which the sandboxed process can read: a
 * host path would tell it how the host is laid out (user names, project folders), so it is kept
 * only as `host:sha256:<digest>` (enough to tell two sources apart), with its base name.
 */
export function recordedSource(input: StagedInput): string {
  if (input.host !== true) return input.from;
  const hostPath = path.resolve(input.from.startsWith('host://') ? input.from.slice('host://'.length) : input.from);
  return `host:sha256:${createHash('sha256').update(hostPath).digest('hex').slice(0, 16)}/${path.basename(hostPath)}`;
}

export interface InputStagingContext {
  root: string;
  paths: WorkspacePathContext;
  sessionId: string;
  repository: SkillRepository;
  skillContext?: SkillContext;
  artifacts?: ArtifactStore;
  /** Host paths may be staged (true), only below these folders (list), or not at all (false). */
  hostAccess: boolean | readonly string[];
  /** False for runtimes that cannot see host paths: a link to the host would dangle there. */
  hostLinks: boolean;
}

/** Destinations an input may not take: they would replace the workspace's own structure. */
const protectedDestinations = new Set(['', metadataFileName, ...Object.values(workspaceFolders)]);

/** Resolves where an input goes; refuses a destination that leaves the workspace or replaces its structure. */
export function inputDestination(spec: InputSpec, fallbackName: string, paths: WorkspacePathContext): string {
  let to = (spec.to ?? '').trim().replace(/\\/g, '/');
  if (to === '' || to === '.' || to === './' || to === 'inputs' || to === 'inputs/') to = `${workspaceFolders.inputs}/${fallbackName}`;
  else if (to.startsWith('inputs/')) to = `${workspaceFolders.work}/${to}`;
  const relative = toWorkspaceRelative(to, '', paths);
  if (protectedDestinations.has(relative)) throw new WorkspacePathError(spec.to ?? '', 'it would replace a folder or file of the workspace itself');
  return relative;
}

/**
 * Places one input. Every write goes through a parent folder checked to be a real folder inside the
 * workspace, and whatever sat at the destination (a file, a folder, a planted link) is replaced, not
 * written through. Copies are built beside the destination and renamed into place.
 */
export async function stageInput(spec: InputSpec, context: InputStagingContext): Promise<StagedInput> {
  const from = spec.from?.trim() ?? '';
  if (from === '') throw new WorkspaceInputError(String(spec.from), '`from` is empty');
  const mode = spec.mode ?? 'copy';
  if (mode !== 'copy' && mode !== 'link') throw new WorkspaceInputError(from, `mode must be "copy" or "link", not "${String(mode)}"`);

  if (from.startsWith('artifact://')) {
    const reference = parseArtifactReference(from);
    if (reference === undefined || reference.name === '') throw new WorkspaceInputError(from, 'expected artifact://<name>[@<version>]');
    if (context.artifacts === undefined) throw new WorkspaceInputError(from, 'no artifact store is configured');
    if (mode === 'link') throw new WorkspaceInputError(from, 'artifacts can only be copied');
    const artifact = await context.artifacts.load({ scope: context.sessionId, name: reference.name }, reference.version);
    const to = inputDestination(spec, path.posix.basename(reference.name), context.paths);
    await replaceWith(context.root, to, (temporary) => writeFile(temporary, artifact.data, { mode: 0o644 }));
    return { from, to, mode, version: artifact.version };
  }

  if (from.startsWith('skill://')) {
    const rest = from.slice('skill://'.length);
    const slash = rest.indexOf('/');
    const skill = slash === -1 ? rest : rest.slice(0, slash);
    const inner = slash === -1 ? '' : rest.slice(slash + 1).replace(/\/+$/, '');
    if (skill === '') throw new WorkspaceInputError(from, 'expected skill://<name>/<path>');
    if (mode === 'link') throw new WorkspaceInputError(from, 'skill files can only be copied');
    const all = await context.repository.listFiles(skill, context.skillContext);
    const chosen = inner === '' ? all : all.filter((file) => file === inner || file.startsWith(`${inner}/`));
    if (chosen.length === 0) throw new WorkspaceInputError(from, `skill "${skill}" has no file or folder "${inner}"`);
    const single = chosen.length === 1 && chosen[0] === inner;
    const to = inputDestination(spec, inner === '' ? skill : path.posix.basename(inner), context.paths);
    await replaceWith(context.root, to, async (temporary) => {
      if (single) return writeFile(temporary, await context.repository.readFile(skill, inner, context.skillContext), { mode: 0o644 });
      for (const file of chosen) {
        const target = path.join(temporary, ...(inner === '' ? file : file.slice(inner.length + 1)).split('/'));
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, await context.repository.readFile(skill, file, context.skillContext), { mode: 0o644 });
      }
    });
    return { from, to, mode };
  }

  if (from.startsWith('workspace://')) {
    const relative = toWorkspaceRelative(from, '', context.paths);
    const source = await realPathInside(context.root, path.join(context.root, relative));
    if (source === undefined) throw new WorkspaceInputError(from, 'no such file or folder inside the workspace');
    const to = inputDestination(spec, path.posix.basename(relative) || 'workspace', context.paths);
    const sourceRelative = path.relative(context.root, source);
    if (mode === 'link') {
      await replaceWith(context.root, to, (temporary) => symlink(path.relative(path.dirname(path.join(context.root, to)), path.join(context.root, sourceRelative)), temporary));
    } else {
      await replaceWith(context.root, to, (temporary) => copyPath(source, temporary));
    }
    return { from, to, mode };
  }

  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(from) && !from.startsWith('host://')) {
    throw new WorkspaceInputError(from, 'unsupported scheme; use host://, workspace://, skill:// or artifact://');
  }
  const hostPath = path.resolve(from.startsWith('host://') ? from.slice('host://'.length) : from);
  if (context.hostAccess === false) throw new WorkspaceInputError(from, 'host paths are not allowed here; stage files with workspace://, skill:// or artifact:// instead');
  if (Array.isArray(context.hostAccess) && !context.hostAccess.some((allowedRoot) => isBelow(path.resolve(allowedRoot), hostPath))) {
    throw new WorkspaceInputError(from, 'the path is outside the host folders this workspace may read');
  }
  const exists = await stat(hostPath).then(() => true, () => false);
  if (!exists) throw new WorkspaceInputError(from, 'no such file or folder on the host');
  const to = inputDestination(spec, path.basename(hostPath), context.paths);
  if (mode === 'link') {
    if (!context.hostLinks) throw new WorkspaceInputError(from, 'this runtime cannot see host paths, so a link would dangle; use mode "copy"');
    await replaceWith(context.root, to, (temporary) => symlink(hostPath, temporary));
  } else {
    await replaceWith(context.root, to, (temporary) => copyPath(hostPath, temporary));
  }
  return { from, to, mode, host: true };
}

function isBelow(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Copies a file, or a folder without links that leave it. */
async function copyPath(source: string, destination: string): Promise<void> {
  const stats = await stat(source);
  if (stats.isFile()) {
    await writeFile(destination, await readFile(source), { mode: (stats.mode & 0o777) | 0o600 });
    return;
  }
  const scan = await scanFolder(source, { skillFolder: false });
  await mkdir(destination, { mode: 0o755 });
  await copyScannedEntries(source, scan.entries, destination);
}

/** Builds the new entry at a temporary sibling, then renames it over the destination. */
async function replaceWith(root: string, to: string, build: (temporary: string) => Promise<void>): Promise<void> {
  const parent = await ensureDirectoryInside(root, path.posix.dirname(to) === '.' ? '' : path.posix.dirname(to));
  const name = path.posix.basename(to);
  const suffix = randomBytes(6).toString('hex');
  const temporary = path.join(parent, `.input-${suffix}`);
  const target = path.join(parent, name);
  try {
    await build(temporary);
    const existing = await lstat(target).catch(() => undefined);
    if (existing?.isDirectory()) {
      const retired = path.join(parent, `.retired-${suffix}`);
      await rename(target, retired);
      await rename(temporary, target);
      await rm(retired, { recursive: true, force: true });
    } else {
      // rename replaces a file or a link itself, never what a link points to.
      await rename(temporary, target);
    }
  } catch (error) {
    await rm(temporary, { recursive: true, force: true });
    throw error;
  }
}
