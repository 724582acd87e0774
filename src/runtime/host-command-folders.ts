import { realpathSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { RuntimeCommandError } from './errors.js';
import { isInside } from './is-inside.js';

/**
 * The canonical workspace folder and cwd of a command a host runtime is about to start, refused by
 * field when either does not exist or the cwd resolves outside the workspace. This is the host
 * runtimes' own check, not a field check (`validateRuntimeCommand` did those, above the runtime):
 * only when the command starts does the runtime see where the folders lead now, and a command of
 * the workspace (a background one) may have swapped the cwd for a link out since the workspace
 * layer resolved it. The sandbox binds the folder checked here, never the path it was given.
 */
export function resolveHostCommandFolders(command: { workspaceRoot: string; cwd: string }): {
  workspaceRoot: string;
  cwd: string;
} {
  // The usual command runs in its workspace's root: one lookup then serves both fields.
  const workspaceRoot = existingDirectory('workspaceRoot', command.workspaceRoot);
  const cwd = command.cwd === command.workspaceRoot ? workspaceRoot : existingDirectory('cwd', command.cwd);
  if (!isInside(workspaceRoot, cwd)) {
    throw new RuntimeCommandError('cwd', `"${command.cwd}" is not inside the workspace "${command.workspaceRoot}"`);
  }
  return { workspaceRoot, cwd };
}

/**
 * The folder's canonical path. Looked up synchronously on purpose: two system calls on a local
 * folder take microseconds, while a round trip through the thread pool wakes pool threads that
 * contend for its lock (docs/decisions/fast-at-any-size-measurements.md, "Where the sandbox's own CPU goes").
 */
function existingDirectory(field: string, path: string): string {
  // A host path, never one taken relative to this process's own folder.
  if (typeof path !== 'string' || !isAbsolute(path)) {
    throw new RuntimeCommandError(field, `must be an absolute host path, got ${JSON.stringify(path)}`);
  }
  let canonical: string;
  try {
    canonical = realpathSync.native(path);
  } catch {
    throw new RuntimeCommandError(field, `"${path}" does not exist`);
  }
  // The canonical path, not the given one: the folder the run gets is the one that was checked.
  let isDirectory: boolean;
  try {
    isDirectory = statSync(canonical).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) throw new RuntimeCommandError(field, `"${path}" is not a directory`);
  return canonical;
}
