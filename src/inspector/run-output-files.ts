import { readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { openFileInside, readHead, withFolderInside } from '../runtime/anchored-folder.js';
import { WorkspacePathError } from '../runtime/errors.js';
import type { SessionStore } from '../sessions/session-store.js';
import { ArtifactNameError } from '../workspace/errors.js';
import type { ArtifactStore } from '../workspace/outputs/artifact-store.js';
import { detectMimeType } from '../workspace/outputs/mime-type.js';
import { type WorkspaceKey, workspaceKeyId } from '../workspace/workspace-key.js';
import { workspaceFolderPrefix } from '../workspace/workspace-manager.js';
import type { Refusal } from './request-guard.js';
import { runsOf } from './sessions-view.js';

/** Largest output file the inspector serves: a run's picture, not a data set. */
export const defaultMaxServedOutputBytes = 16 * 1024 * 1024;

/**
 * Raster images a browser shows as pictures and cannot run: served inline when their bytes say so.
 * SVG is not here: it is a document that can carry script, so it is only ever downloaded.
 */
const inlineImageTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** An output file as it is served: its bytes, the type they were judged to be, and whether a page may show it. */
export interface ServedOutputFile {
  data: Buffer;
  /** The file's base name, for Content-Disposition. */
  fileName: string;
  contentType: string;
  inline: boolean;
}

/** What names one output file of one run: the session, the event holding the run's result, the file's name in it. */
export interface OutputFileRequest {
  key: { appName: string; userId: string; sessionId: string };
  runVersion: number;
  name: string;
}

/**
 * Reads one output file of a run from its session's workspace, read-only, or says why not.
 *
 * Only a file that the stored result of that run names in `output_files` is served: the request
 * names the run and the file, and both are checked against the session store first. The file is
 * then opened inside the session's workspace folder (under `workspacesDir`, as the workspace
 * manager named it), each folder through its checked parent and the file itself without following
 * a link (anchored-folder.ts): a link a command planted, in the file's place or in a folder on its
 * way, that leads out of the workspace is refused, whatever it was swapped to since. A file larger
 * than `maxBytes`, or one whose size is no longer what the run recorded (a later run rewrote it), is
 * refused too. The type comes from the bytes, not from the name or the stored result: only a raster
 * image whose bytes say so is marked inline.
 */
export async function readRunOutputFile(
  store: SessionStore,
  workspacesDir: string,
  request: OutputFileRequest,
  maxBytes = defaultMaxServedOutputBytes,
): Promise<ServedOutputFile | Refusal> {
  const shape = outputNameProblem(request.name);
  if (shape !== undefined) return { status: 400, reason: `file ${shape}` };
  const run = await runAt(store, request.key, request.runVersion);
  const named = run?.outputFiles.find((file) => file.name === request.name);
  if (named === undefined)
    return { status: 404, reason: `no run of this session at event ${request.runVersion} names the output file` };
  for (const root of await workspaceFolders(workspacesDir, request.key)) {
    const folder = path.posix.dirname(request.name);
    let opened: Awaited<ReturnType<typeof openFileInside>>;
    try {
      opened = await withFolderInside(root, folder === '.' ? '' : folder, { create: false }, (anchored) =>
        openFileInside(root, anchored.entry(path.posix.basename(request.name))),
      );
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      if (code === 'ELOOP') return { status: 403, reason: 'the output file is a link: not served' };
      if (error instanceof WorkspacePathError) {
        // A folder on the way is missing: perhaps in an older workspace of the session.
        if (error.message.endsWith('does not exist')) continue;
        // Said without the host path: whoever asks learns only that it is refused.
        return {
          status: 403,
          reason: 'the output file leads out of the workspace or is not a regular file: not served',
        };
      }
      throw error;
    }
    try {
      const { size } = await opened.stat();
      if (size > maxBytes)
        return { status: 413, reason: `the output file has ${size} bytes; the inspector serves at most ${maxBytes}` };
      if (named.sizeBytes !== undefined && named.sizeBytes !== size)
        return {
          status: 409,
          reason: `the output file has changed since the run (${named.sizeBytes} bytes then, ${size} now)`,
        };
      const { data } = await readHead(opened, maxBytes);
      return servedAs(data, request.name);
    } finally {
      await opened.close();
    }
  }
  return { status: 404, reason: "the output file is no longer in the session's workspace" };
}

/** Why `name` cannot be a workspace-relative output name (as run results spell them), or undefined. */
function outputNameProblem(name: string): string | undefined {
  if (name === '' || name.length > 4096) return 'must be a workspace-relative path of 1 to 4096 characters';
  if (/\p{Cc}/u.test(name) || name.includes('\\')) return 'must not hold control characters or backslashes';
  if (name.startsWith('/')) return 'must be relative to the workspace';
  if (name.split('/').some((part) => part === '..' || part === '.' || part === ''))
    return 'must not climb (..) or hold empty or "." parts';
  return undefined;
}

/**
 * The workspace folders of the session, newest first, as the workspace manager names them. The
 * agent keys a workspace with the app only when it was given one, so the app "default" is looked for
 * both ways.
 */
async function workspaceFolders(workspacesDir: string, key: OutputFileRequest['key']): Promise<string[]> {
  const keys: WorkspaceKey[] = [{ appName: key.appName, userId: key.userId, sessionId: key.sessionId }];
  if (key.appName === 'default') keys.push({ userId: key.userId, sessionId: key.sessionId });
  const base = await realpath(workspacesDir).catch(() => undefined);
  if (base === undefined) return [];
  const entries = await readdir(base, { withFileTypes: true });
  const found: Array<[number, string]> = [];
  for (const workspaceKey of keys) {
    const prefix = workspaceFolderPrefix(workspaceKey);
    for (const entry of entries) {
      const stamp = entry.name.slice(prefix.length);
      // A real folder only: a link in the workspaces folder is not the manager's.
      if (entry.isDirectory() && entry.name.startsWith(prefix) && /^\d+$/.test(stamp))
        found.push([Number(stamp), path.join(base, entry.name)]);
    }
  }
  return found.sort((a, b) => b[0] - a[0]).map(([, root]) => root);
}

/** What names one saved artifact of one run: the session, the event holding the run's result, the artifact's name and version in it. */
export interface ArtifactFileRequest {
  key: { appName: string; userId: string; sessionId: string };
  runVersion: number;
  name: string;
  version: number;
}

/**
 * Reads one artifact a run saved (`artifact_files` of its stored result), read-only, through the
 * artifact store's public `versions` and `load`, or says why not. Only an artifact that the stored
 * result of that run names, with that version, is served; a version once saved never changes, so
 * it is what the run made even after its workspace is gone. Its recorded size is checked against
 * `maxBytes` before its bytes are read; its type is judged from its bytes alone, as for a
 * workspace file. The store is the host's own (the workspace manager writes it; no command does).
 */
export async function readRunArtifact(
  store: SessionStore,
  artifacts: ArtifactStore,
  request: ArtifactFileRequest,
  maxBytes = defaultMaxServedOutputBytes,
): Promise<ServedOutputFile | Refusal> {
  const run = await runAt(store, request.key, request.runVersion);
  const named = run?.artifactFiles.some((file) => file.name === request.name && file.version === request.version);
  if (named !== true)
    return { status: 404, reason: `no run of this session at event ${request.runVersion} names the artifact` };
  const scopes = [workspaceKeyId(request.key)];
  if (request.key.appName === 'default')
    scopes.push(workspaceKeyId({ userId: request.key.userId, sessionId: request.key.sessionId }));
  for (const scope of scopes) {
    const address = { scope, name: request.name };
    let saved: Awaited<ReturnType<ArtifactStore['versions']>>;
    try {
      saved = await artifacts.versions(address);
    } catch (error) {
      // A name the store could never have saved ("..", too long): a forged result.
      if (error instanceof ArtifactNameError) return { status: 400, reason: `name ${error.message}` };
      throw error;
    }
    const recorded = saved.find((candidate) => candidate.version === request.version);
    if (recorded === undefined) continue;
    if (recorded.sizeBytes > maxBytes)
      return {
        status: 413,
        reason: `the artifact has ${recorded.sizeBytes} bytes; the inspector serves at most ${maxBytes}`,
      };
    const { data } = await artifacts.load(address, request.version);
    if (data.length > maxBytes)
      return { status: 413, reason: `the artifact has ${data.length} bytes; the inspector serves at most ${maxBytes}` };
    return servedAs(data, request.name);
  }
  return { status: 404, reason: 'the artifact is not in the artifact store' };
}

/** The bytes as they are sent: typed by their content alone, inline only when they are a raster image. */
/** The run whose stored result is the event at `version` of the session, read from that event on. */
async function runAt(store: SessionStore, key: OutputFileRequest['key'], version: number) {
  const session = await store.getSession(key, { afterVersion: version - 1 });
  return runsOf(session?.events ?? []).find((candidate) => candidate.version === version);
}

function servedAs(data: Buffer, name: string): ServedOutputFile {
  // No name given: detectMimeType would take a binary's type from its extension (junk named .png).
  const judged = detectMimeType('', data.subarray(0, 64));
  const inline = inlineImageTypes.has(judged);
  return {
    data,
    fileName: path.posix.basename(name),
    contentType: inline ? judged : 'application/octet-stream',
    inline,
  };
}
