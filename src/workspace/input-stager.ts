import { createHash } from 'node:crypto';
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { SkillContext, SkillRepository } from '../repository/types.js';
import { hostFileEntries } from '../runtime/host-file-entries.js';
import { scanTree } from '../runtime/scan-tree.js';
import type { PlacedTree, TreeEntry, WorkspaceFiles } from '../runtime/workspace-files.js';
import { WorkspaceInputError, WorkspacePathError } from './errors.js';
import { type ArtifactStore, parseArtifactReference } from './outputs/artifact-store.js';
import {
  isInside,
  metadataFileName,
  toWorkspaceRelative,
  type WorkspacePathContext,
  workspaceFolders,
} from './workspace-paths.js';

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
  /** The workspace's files, through its runtime. */
  files: WorkspaceFiles;
  paths: WorkspacePathContext;
  /** Scope of `artifact://` inputs: the workspace's own (app, user and session). */
  artifactScope: string;
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
  if (to === '' || to === '.' || to === './' || to === 'inputs' || to === 'inputs/')
    to = `${workspaceFolders.inputs}/${fallbackName}`;
  else if (to.startsWith('inputs/')) to = `${workspaceFolders.work}/${to}`;
  const relative = toWorkspaceRelative(to, '', paths);
  if (protectedDestinations.has(relative))
    throw new WorkspacePathError(spec.to ?? '', 'it would replace a folder or file of the workspace itself');
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
  if (mode !== 'copy' && mode !== 'link')
    throw new WorkspaceInputError(from, `mode must be "copy" or "link", not "${String(mode)}"`);

  if (from.startsWith('artifact://')) {
    const reference = parseArtifactReference(from);
    if (reference === undefined || reference.name === '')
      throw new WorkspaceInputError(from, 'expected artifact://<name>[@<version>]');
    if (context.artifacts === undefined) throw new WorkspaceInputError(from, 'no artifact store is configured');
    if (mode === 'link') throw new WorkspaceInputError(from, 'artifacts can only be copied');
    const artifact = await context.artifacts.load(
      { scope: context.artifactScope, name: reference.name },
      reference.version,
    );
    const to = inputDestination(spec, path.posix.basename(reference.name), context.paths);
    await context.files.put(to, { kind: 'file', mode: 0o644, content: { data: artifact.data } });
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
    let tree: PlacedTree;
    if (single) {
      const data = await context.repository.readFile(skill, inner, context.skillContext);
      tree = { kind: 'file', mode: 0o644, content: { data } };
    } else {
      const entries: TreeEntry[] = [];
      for (const file of chosen) {
        entries.push({
          kind: 'file',
          path: inner === '' ? file : file.slice(inner.length + 1),
          mode: 0o644,
          content: { data: await context.repository.readFile(skill, file, context.skillContext) },
        });
      }
      tree = { kind: 'directory', mode: 0o755, entries };
    }
    await context.files.put(to, tree);
    return { from, to, mode };
  }

  if (from.startsWith('workspace://')) {
    const relative = toWorkspaceRelative(from, '', context.paths);
    const [source] = await context.files.resolve([relative]);
    if (source === undefined || !source.inside)
      throw new WorkspaceInputError(from, 'no such file or folder inside the workspace');
    const to = inputDestination(spec, path.posix.basename(relative) || 'workspace', context.paths);
    if (mode === 'link') {
      const target = path.posix.relative(path.posix.dirname(to), source.path) || '.';
      await context.files.put(to, { kind: 'link', target });
    } else {
      if (source.entry.kind !== 'file' && source.entry.kind !== 'directory')
        throw new WorkspaceInputError(from, 'it is neither a file nor a folder');
      await context.files.copy(source.path, to);
    }
    return { from, to, mode };
  }

  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(from) && !from.startsWith('host://')) {
    throw new WorkspaceInputError(from, 'unsupported scheme; use host://, workspace://, skill:// or artifact://');
  }
  const hostPath = path.resolve(from.startsWith('host://') ? from.slice('host://'.length) : from);
  if (context.hostAccess === false)
    throw new WorkspaceInputError(
      from,
      'host paths are not allowed here; stage files with workspace://, skill:// or artifact:// instead',
    );
  // Judged by real paths: a link inside an allowed folder may lead anywhere on the host.
  const realSource = await realpath(hostPath).catch(() => undefined);
  if (realSource === undefined) throw new WorkspaceInputError(from, 'no such file or folder on the host');
  let allowedRoot = path.parse(realSource).root;
  if (Array.isArray(context.hostAccess)) {
    const allowed = await Promise.all(
      context.hostAccess.map((root) => realpath(path.resolve(root)).catch(() => undefined)),
    );
    const container = allowed.find((root) => root !== undefined && isInside(root, realSource));
    if (container === undefined) {
      const lexicallyInside = context.hostAccess.some((root) => isInside(path.resolve(root), hostPath));
      throw new WorkspaceInputError(
        from,
        lexicallyInside
          ? 'it is a link (or passes through one) that leads out of the host folders this workspace may read'
          : 'the path is outside the host folders this workspace may read',
      );
    }
    allowedRoot = container;
  }
  const to = inputDestination(spec, path.basename(hostPath), context.paths);
  if (mode === 'link') {
    if (!context.hostLinks)
      throw new WorkspaceInputError(
        from,
        'this runtime cannot see host paths, so a link would dangle; use mode "copy"',
      );
    await context.files.put(to, { kind: 'link', target: realSource });
  } else {
    await context.files.put(to, await hostTree(realSource, allowedRoot));
  }
  return { from, to, mode, host: true };
}

/**
 * A host file, or a folder without links that leave it, as a tree to place. Every file is read
 * through `within` (the runtime opens it without following its last name and checks, once open,
 * that it lies inside `allowedRoot`): a link swapped into the source after this scan cannot make
 * the host read elsewhere.
 */
async function hostTree(source: string, allowedRoot: string): Promise<PlacedTree> {
  const stats = await lstat(source);
  if (stats.isFile())
    return { kind: 'file', mode: (stats.mode & 0o777) | 0o600, content: { hostFile: source, within: allowedRoot } };
  if (!stats.isDirectory()) throw new WorkspaceInputError(source, 'it is neither a file nor a folder');
  const scan = await scanTree(source);
  const entries = hostFileEntries(source, scan.entries, allowedRoot);
  return { kind: 'directory', mode: 0o755, entries };
}
