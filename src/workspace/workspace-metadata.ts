import type { WorkspaceFiles } from '../runtime/workspace-files.js';
import { metadataFileName } from './workspace-paths.js';

export interface StagedSkillRecord {
  name: string;
  rel_path: string;
  /** What was staged: a skill folder's manifest, or sha256 over paths and contents for a skill defined in code. */
  digest: string;
  /** A skill folder's manifest (sizes, times, inodes, modes; see folder-snapshot.ts): the check made on every stage. */
  manifest?: string;
  mode: 'copy' | 'link';
  staged_at: string;
  /**
   * Inode of the working copy as staging left it. Kept with the host's record, so a copy a command
   * swapped in is rebuilt in a later process too, not only in the one that staged it.
   */
  copy_inode?: number;
}

export interface InputRecord {
  from: string;
  to: string;
  mode: 'copy' | 'link';
  version?: number;
  ts: string;
}

export interface WorkspaceMetadata {
  version: 1;
  session_id: string;
  created_at: string;
  updated_at: string;
  last_access: string;
  skills: Record<string, StagedSkillRecord>;
  inputs: InputRecord[];
}

/** Inputs kept: metadata.json is rewritten whole at every staging, so it must not grow without bound. */
export const metadataRecordLimit = 200;

export function freshMetadata(sessionId: string, now: Date): WorkspaceMetadata {
  const stamp = now.toISOString();
  return {
    version: 1,
    session_id: sessionId,
    created_at: stamp,
    updated_at: stamp,
    last_access: stamp,
    skills: {},
    inputs: [],
  };
}

/**
 * Largest metadata.json read. The host writes at most `metadataRecordLimit` records per list (a few
 * hundred kilobytes); anything larger was written by a command and is not read at all, so a 1 GB
 * file costs nothing.
 */
export const maxMetadataBytes = 4 * 1024 * 1024;

/**
 * Reads the workspace's metadata.json without following a link (the sandboxed process can write the
 * workspace and could plant one), without blocking on a FIFO, and only up to `maxMetadataBytes`.
 * A missing, unreadable, oversized or malformed file yields undefined. This is the copy a command
 * can rewrite: the workspace never reads it back (its record is the host's, host-metadata-record.ts);
 * it is for people and tests looking at what a workspace says about itself.
 */
export async function readMetadata(files: WorkspaceFiles): Promise<WorkspaceMetadata | undefined> {
  try {
    // Its size is looked at first, so an oversized file is not read at all.
    const entry = await files.inspect(metadataFileName);
    if (entry?.kind !== 'file' || entry.sizeBytes > maxMetadataBytes) return undefined;
    const { data, sizeBytes } = await files.read(metadataFileName, maxMetadataBytes);
    if (sizeBytes > maxMetadataBytes) return undefined;
    return parseMetadata(data.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Metadata from its JSON text, or undefined when it is not metadata; records of the wrong shape
 * are dropped, so a caller comparing against a record finds none and starts over (re-stages).
 */
export function parseMetadata(text: string): WorkspaceMetadata | undefined {
  let parsed: Partial<WorkspaceMetadata>;
  try {
    parsed = JSON.parse(text) as Partial<WorkspaceMetadata>;
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || parsed.version !== 1 || typeof parsed.session_id !== 'string')
    return undefined;
  const textOr = (value: unknown, fallback: string) => (typeof value === 'string' ? value : fallback);
  const now = new Date().toISOString();
  const skills: Record<string, StagedSkillRecord> = {};
  if (typeof parsed.skills === 'object' && parsed.skills !== null && !Array.isArray(parsed.skills)) {
    for (const [name, record] of Object.entries(parsed.skills)) if (isSkillRecord(record)) skills[name] = record;
  }
  return {
    version: 1,
    session_id: parsed.session_id,
    created_at: textOr(parsed.created_at, now),
    updated_at: textOr(parsed.updated_at, now),
    last_access: textOr(parsed.last_access, now),
    skills,
    inputs: Array.isArray(parsed.inputs)
      ? parsed.inputs.filter((record) => typeof record === 'object' && record !== null).slice(-metadataRecordLimit)
      : [],
  };
}

/** Drops the oldest inputs beyond `metadataRecordLimit`, in place. */
export function keepRecordLimit(metadata: WorkspaceMetadata): void {
  metadata.inputs = metadata.inputs.slice(-metadataRecordLimit);
}

/** A staged-skill record staging can compare against: anything else means "re-stage". */
function isSkillRecord(value: unknown): value is StagedSkillRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<StagedSkillRecord>;
  return (
    typeof record.name === 'string' &&
    typeof record.rel_path === 'string' &&
    typeof record.digest === 'string' &&
    (record.manifest === undefined || typeof record.manifest === 'string') &&
    (record.mode === 'copy' || record.mode === 'link') &&
    typeof record.staged_at === 'string' &&
    (record.copy_inode === undefined || typeof record.copy_inode === 'number')
  );
}

/**
 * Writes the workspace's copy of the metadata, metadata.json, atomically with mode 0600
 * (`WorkspaceFiles.put`: built where no command can reach it, then moved over the old one). A
 * temporary file inside the workspace could be swapped for a link by a running command between the
 * write and the rename.
 */
export async function writeMetadata(files: WorkspaceFiles, metadata: WorkspaceMetadata): Promise<void> {
  keepRecordLimit(metadata);
  const data = Buffer.from(`${JSON.stringify(metadata, null, 2)}\n`, 'utf8');
  await files.put(metadataFileName, { kind: 'file', mode: 0o600, content: { data } }, { keepFolder: true });
}
