import path from 'node:path';
import { WorkspacePathError } from './errors.js';

/** Top-level folders of a workspace, as docs/workspaces.md lays them out. */
export const workspaceFolders = {
  skills: 'skills',
  work: 'work',
  inputs: 'work/inputs',
  out: 'out',
  runs: 'runs',
} as const;

export const metadataFileName = 'metadata.json';

/** The environment variables that name workspace folders, and the folder each stands for. */
const folderVariables: Record<string, string> = {
  WORKSPACE_DIR: '',
  SKILLS_DIR: workspaceFolders.skills,
  WORK_DIR: workspaceFolders.work,
  OUTPUT_DIR: workspaceFolders.out,
};

// In its own file so that anchored-folder.ts, which this file uses, can share it without a cycle.
import { isInside } from '../runtime/is-inside.js';

export { isInside };

export interface WorkspacePathContext {
  /** Host path of the workspace root. */
  hostRoot: string;
  /** The same root as the process sees it (equal to hostRoot for the local runtime). */
  guestRoot: string;
  /** Workspace-relative run folder, so `$RUN_DIR/...` can be resolved; absent outside a run. */
  runDir?: string;
}

/**
 * Turns a path the model wrote (`$OUTPUT_DIR/a.txt`, `${WORK_DIR}`, `workspace://out/x`, an
 * absolute guest or host path inside the workspace, or a path relative to `base`) into a clean
 * workspace-relative `/`-separated path ('' is the root). Anything that climbs out, or an absolute
 * path elsewhere on the machine, is refused rather than silently replaced: a model that asked for
 * `/etc` should learn it cannot have it.
 */
export function toWorkspaceRelative(input: string, base: string, context: WorkspacePathContext): string {
  const raw = input;
  let value = input.trim().replace(/\\/g, '/');
  if (value.includes('\0')) throw new WorkspacePathError(raw, 'it contains a NUL byte');
  if (value.startsWith('workspace://')) value = value.slice('workspace://'.length).replace(/^\/+/, '');
  const variable = /^\$(?:\{([A-Z_]+)\}|([A-Z_]+))(?=\/|$)/.exec(value);
  if (variable) {
    const name = (variable[1] ?? variable[2]) as string;
    let folder = folderVariables[name];
    if (name === 'RUN_DIR') folder = context.runDir;
    if (folder === undefined) {
      throw new WorkspacePathError(
        raw,
        `$${name} is not a workspace folder here (use $WORKSPACE_DIR, $SKILLS_DIR, $WORK_DIR, $OUTPUT_DIR or $RUN_DIR)`,
      );
    }
    value = joinRelative(folder, value.slice(variable[0].length).replace(/^\/+/, ''));
    base = '';
  } else if (value.startsWith('/')) {
    const guest = stripRoot(value, context.guestRoot) ?? stripRoot(value, context.hostRoot);
    if (guest === undefined) {
      throw new WorkspacePathError(
        raw,
        'it is outside the workspace; use a path relative to the workspace or $WORK_DIR, $OUTPUT_DIR, ...',
      );
    }
    value = guest;
    base = '';
  }
  const joined = path.posix.normalize(joinRelative(base, value));
  const clean = joined === '.' ? '' : joined.replace(/\/+$/, '');
  if (clean === '..' || clean.startsWith('../') || clean.startsWith('/')) {
    throw new WorkspacePathError(raw, 'it climbs out of the workspace');
  }
  return clean;
}

function stripRoot(value: string, root: string): string | undefined {
  const normalized = path.posix.normalize(value);
  const rootClean = root.replace(/\/+$/, '');
  if (normalized === rootClean) return '';
  if (normalized.startsWith(`${rootClean}/`)) return normalized.slice(rootClean.length + 1);
  return undefined;
}

function joinRelative(base: string, rest: string): string {
  if (base === '') return rest === '' ? '.' : rest;
  return rest === '' ? base : `${base}/${rest}`;
}
