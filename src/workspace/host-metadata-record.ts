import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { WorkspaceFiles } from '../runtime/workspace-files.js';
import { keepRecordLimit, parseMetadata, type WorkspaceMetadata, writeMetadata } from './workspace-metadata.js';

/**
 * Folder beside the workspace folders, outside every workspace, holding the host's record of each
 * one: `<base>/.host-records/<workspace folder>.json`. No command is given it (a sandbox mounts the
 * workspace folder alone), so what it says is what the host staged: which skills, their manifests,
 * the inode of each copy. metadata.json in the workspace is a copy for people to read, which any
 * command can rewrite, and is never read back.
 */
export const hostRecordsFolderName = '.host-records';

/** Where the host keeps the record of the workspace at `root` (a host path, for every runtime). */
export function hostRecordPath(root: string): string {
  return path.join(path.dirname(root), hostRecordsFolderName, `${path.basename(root)}.json`);
}

/**
 * The host's record of the workspace at `root`, or undefined when there is none (a workspace made
 * by a version that kept none) or it cannot be parsed.
 */
export async function readHostRecord(root: string): Promise<WorkspaceMetadata | undefined> {
  let text: string;
  try {
    text = readFileSync(hostRecordPath(root), 'utf8');
  } catch {
    return undefined;
  }
  return parseMetadata(text);
}

/**
 * Stores `metadata` for the workspace at `root`, both at once: the host's record (written beside it
 * and renamed over it, so a reader sees the old record or the new one), whose failure is thrown,
 * and the workspace's metadata.json, whose failure is returned. The record is what the host goes
 * by; the copy is for people, and a command can stop it from being replaced (a folder in its place),
 * which must not fail the staging that asked for the write.
 */
export async function storeMetadata(
  root: string,
  files: WorkspaceFiles,
  metadata: WorkspaceMetadata,
): Promise<{ copyError?: unknown; recordVersion: string }> {
  keepRecordLimit(metadata);
  const [record, copy] = await Promise.allSettled([writeHostRecord(root, metadata), writeMetadata(files, metadata)]);
  if (record.status === 'rejected') throw record.reason;
  return { recordVersion: record.value, ...(copy.status === 'rejected' ? { copyError: copy.reason } : {}) };
}

/**
 * Which version of the host's record is on disk now (its inode, size and modification time), or
 * undefined when there is none. Every write renames a new file over the record, so a record another
 * process wrote since this one's own write has another version: a writer that finds its own
 * version there has nothing to merge and need not read the record back.
 */
export function hostRecordVersion(root: string): string | undefined {
  const stats = statSync(hostRecordPath(root), { throwIfNoEntry: false });
  return stats === undefined ? undefined : versionOf(stats);
}

function versionOf(stats: Stats): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

/**
 * The record is a few kilobytes (keepRecordLimit bounds its lists) on the host's own disk: written
 * with direct calls, as each run writes it, since five trips through the thread pool cost more than
 * the writing (the reading in readHostRecord likewise).
 */
async function writeHostRecord(root: string, metadata: WorkspaceMetadata): Promise<string> {
  const record = hostRecordPath(root);
  // Not recursive: a write that outlives the removal of the base folder fails instead of making it again.
  try {
    mkdirSync(path.dirname(record), { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // A name of its own per write: two processes on one workspace must not share a half-written file.
  const temporary = `${record}.${randomBytes(8).toString('hex')}.tmp`;
  try {
    // The version is taken from the file written, before it is renamed into place: a stat after the
    // rename could see another process's record renamed over it meanwhile and take it for this one's.
    const descriptor = openSync(temporary, 'wx', 0o600);
    let version: string;
    try {
      writeFileSync(descriptor, `${JSON.stringify(metadata)}\n`);
      version = versionOf(fstatSync(descriptor));
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, record);
    return version;
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Removes the host's record of the workspace at `root`; none is not an error. */
export function removeHostRecord(root: string): Promise<void> {
  return rm(hostRecordPath(root), { force: true });
}
