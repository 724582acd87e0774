import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
): Promise<{ copyError?: unknown }> {
  keepRecordLimit(metadata);
  const [record, copy] = await Promise.allSettled([writeHostRecord(root, metadata), writeMetadata(files, metadata)]);
  if (record.status === 'rejected') throw record.reason;
  return copy.status === 'rejected' ? { copyError: copy.reason } : {};
}

/**
 * The record is a few kilobytes (keepRecordLimit bounds its lists) on the host's own disk: written
 * with direct calls, as each run writes it, since five trips through the thread pool cost more than
 * the writing (the reading in readHostRecord likewise).
 */
async function writeHostRecord(root: string, metadata: WorkspaceMetadata): Promise<void> {
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
    writeFileSync(temporary, `${JSON.stringify(metadata)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(temporary, record);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Removes the host's record of the workspace at `root`; none is not an error. */
export function removeHostRecord(root: string): Promise<void> {
  return rm(hostRecordPath(root), { force: true });
}
