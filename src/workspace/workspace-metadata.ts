import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { metadataFileName } from './workspace-paths.js';

export interface StagedSkillRecord {
  name: string;
  rel_path: string;
  /** sha256 over paths and contents: decides whether a changed manifest really changed anything. */
  digest: string;
  /** sha256 over paths, sizes, modification times and modes: the cheap check made on every stage. */
  manifest?: string;
  mode: 'copy' | 'link';
  staged_at: string;
}

export interface InputRecord {
  from: string;
  to: string;
  mode: 'copy' | 'link';
  version?: number;
  ts: string;
}

export interface RunRecord {
  run_dir: string;
  skill?: string;
  exit_code: number;
  timed_out: boolean;
  duration_ms: number;
  started_at: string;
}

export interface WorkspaceMetadata {
  version: 1;
  session_id: string;
  created_at: string;
  updated_at: string;
  last_access: string;
  skills: Record<string, StagedSkillRecord>;
  inputs: InputRecord[];
  runs: RunRecord[];
}

/** Records kept per list: metadata.json is rewritten on every run, so it must not grow without bound. */
export const metadataRecordLimit = 200;

export function freshMetadata(sessionId: string, now: Date): WorkspaceMetadata {
  const stamp = now.toISOString();
  return { version: 1, session_id: sessionId, created_at: stamp, updated_at: stamp, last_access: stamp, skills: {}, inputs: [], runs: [] };
}

/**
 * Reads metadata.json without following a link (the sandboxed process can write the workspace and
 * could plant one). A missing, unreadable or malformed file yields undefined: the caller starts
 * fresh, which at worst re-stages skills.
 */
export async function readMetadata(root: string): Promise<WorkspaceMetadata | undefined> {
  let handle;
  try {
    handle = await open(path.join(root, metadataFileName), constants.O_RDONLY | constants.O_NOFOLLOW);
    const parsed = JSON.parse(await handle.readFile('utf8')) as Partial<WorkspaceMetadata>;
    if (parsed === null || typeof parsed !== 'object' || parsed.version !== 1 || typeof parsed.session_id !== 'string') return undefined;
    return {
      ...(parsed as WorkspaceMetadata),
      skills: typeof parsed.skills === 'object' && parsed.skills !== null ? parsed.skills : {},
      inputs: Array.isArray(parsed.inputs) ? parsed.inputs : [],
      runs: Array.isArray(parsed.runs) ? parsed.runs : [],
    };
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/** Writes metadata.json atomically (temporary file, then rename) with mode 0600. */
export async function writeMetadata(root: string, metadata: WorkspaceMetadata): Promise<void> {
  metadata.inputs = metadata.inputs.slice(-metadataRecordLimit);
  metadata.runs = metadata.runs.slice(-metadataRecordLimit);
  // Unguessable, so a command cannot plant the name in advance; randomUUID draws from a buffered
  // pool, where randomBytes asks the system for every call (this runs once per run).
  const temporary = path.join(root, `.metadata.${process.pid}.${randomUUID()}.tmp`);
  try {
    await writeFile(temporary, `${JSON.stringify(metadata, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(temporary, path.join(root, metadataFileName));
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
