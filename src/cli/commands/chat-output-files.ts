import { randomBytes } from 'node:crypto';
import { lstat, mkdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { linkOutOfProject } from '../../hub/install/project-confinement.js';
import type { Workspace } from '../../workspace/workspace.js';
import { workspaceFolders } from '../../workspace/workspace-paths.js';

/** Largest output file the chat copies to the output folder; a bigger one stays in the workspace. */
export const maxSavedOutputBytes = 100 * 1024 * 1024;

/** The names of the output files a tool result lists (`skill_run` / `workspace_exec` results), else none. */
export function outputFileNames(output: unknown): string[] {
  if (typeof output !== 'object' || output === null || !('output_files' in output)) return [];
  const files = (output as { output_files: unknown }).output_files;
  if (!Array.isArray(files)) return [];
  return files
    .map((file) => (typeof file === 'object' && file !== null ? (file as { name?: unknown }).name : undefined))
    .filter((name): name is string => typeof name === 'string');
}

/**
 * Where a workspace file goes below the output folder: `out/report.pdf` → `report.pdf` (out/ is
 * where skills are told to write, so it is the folder itself), anything else keeps its workspace
 * path. The name comes from the workspace, which a script (and so the model) controls: only plain
 * relative segments are accepted, so no name can climb out of the output folder.
 */
export function savedName(workspaceName: string): string {
  const prefix = `${workspaceFolders.out}/`;
  const relative = workspaceName.startsWith(prefix) ? workspaceName.slice(prefix.length) : workspaceName;
  if (relative.includes('\0') || relative.includes('\\') || relative.startsWith('/'))
    throw new Error(`"${workspaceName}" is not a plain workspace-relative name`);
  const segments = relative.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..'))
    throw new Error(`"${workspaceName}" has an empty, "." or ".." part`);
  return relative;
}

/** What saving a turn's output files did: the host path of each saved file, and why others were not saved. */
export interface SavedOutputs {
  saved: string[];
  problems: string[];
}

/**
 * Copies output files out of the session's workspace into `outputDir` on the host. Workspaces
 * are temporary (removed after a day unused); the output folder is where the user finds results.
 * The bytes are read through the runtime's `files()` contract (which never follows a link out of
 * the workspace). On the host every folder below `outputDir` is created or checked to be a real
 * folder (a link there is refused, not followed), and each file is written beside its destination
 * and renamed over it, which replaces a link at the destination instead of writing through it.
 */
export async function saveOutputFiles(options: {
  workspace: Workspace;
  names: readonly string[];
  outputDir: string;
  /**
   * The folder the output folder may not leave through a link (the chat's working folder): a
   * `skillbox-output` a repository committed as a link to a folder elsewhere is refused.
   */
  project?: string;
  maxBytes?: number;
}): Promise<SavedOutputs> {
  const maxBytes = options.maxBytes ?? maxSavedOutputBytes;
  const result: SavedOutputs = { saved: [], problems: [] };
  const names = [...new Set(options.names)];
  if (names.length === 0) return result;
  if (options.project !== undefined) {
    const leadsTo = await linkOutOfProject(options.project, options.outputDir);
    if (leadsTo !== undefined)
      throw new Error(
        `${options.outputDir} leads outside the project ${options.project} (to ${leadsTo}) through a link; nothing was saved (give --output-dir to save elsewhere)`,
      );
  }
  await mkdir(options.outputDir, { recursive: true });
  const root = await realpath(options.outputDir);
  for (const name of names) {
    try {
      const relative = savedName(name);
      const { data, sizeBytes } = await options.workspace.exclusive(() =>
        options.workspace.files.read(name, maxBytes + 1),
      );
      if (sizeBytes > maxBytes)
        throw new Error(`it is ${sizeBytes} bytes, over the ${maxBytes} the chat copies; it stays in the workspace`);
      const destination = await placeFile(root, relative, data);
      result.saved.push(destination);
    } catch (error) {
      result.problems.push(`${name}: ${(error as Error).message}`);
    }
  }
  return result;
}

async function placeFile(root: string, relative: string, data: Buffer): Promise<string> {
  const segments = relative.split('/');
  const base = segments.pop() as string;
  let folder = root;
  for (const segment of segments) {
    folder = path.join(folder, segment);
    await mkdir(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    const entry = await lstat(folder);
    if (!entry.isDirectory())
      throw new Error(
        `${folder} is ${entry.isSymbolicLink() ? 'a link' : 'not a folder'}; nothing is written through it`,
      );
  }
  const destination = path.join(folder, base);
  const existing = await lstat(destination).catch(() => undefined);
  if (existing?.isDirectory()) throw new Error(`${destination} is a folder; it is left as it is`);
  const temporary = path.join(folder, `.${base}.skillbox-${randomBytes(6).toString('hex')}`);
  // `wx`: never opens an existing file (or a link planted at the temporary name).
  await writeFile(temporary, data, { flag: 'wx', mode: 0o644 });
  try {
    await rename(temporary, destination);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return destination;
}
