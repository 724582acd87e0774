import { constants } from 'node:fs';
import { lstat, open, readdir, readlink } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { unhashedFolderNames } from '../../repository/skill-digest.js';
import type { SkillScanReport } from './scan-finding.js';
import { type ScannedEntry, scanSkill } from './scan-skill.js';

/** Content past this many bytes of one file is not read: the size alone is reported (large-file). */
const readBytesPerFile = 8 * 1024 * 1024;

async function readHead(path: string, limit: number): Promise<Uint8Array> {
  // No link following and no blocking on a FIFO swapped in after the walk.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const buffer = Buffer.alloc(limit);
    const { bytesRead } = await handle.read(buffer, 0, limit, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function entriesOf(folder: string): Promise<ScannedEntry[]> {
  const entries: ScannedEntry[] = [];
  const walk = async (current: string, prefix: string, depth: number): Promise<void> => {
    if (depth > 32) return;
    for (const name of (await readdir(current)).sort()) {
      const absolute = join(current, name);
      const path = prefix === '' ? name : `${prefix}/${name}`;
      const stats = await lstat(absolute);
      if (stats.isDirectory()) {
        if (!unhashedFolderNames.has(name)) await walk(absolute, path, depth + 1);
      } else if (stats.isSymbolicLink()) {
        entries.push({ kind: 'link', path, target: await readlink(absolute) });
      } else if (stats.isFile()) {
        entries.push({
          kind: 'file',
          path,
          bytes: await readHead(absolute, Math.min(stats.size, readBytesPerFile)),
          executable: (stats.mode & 0o111) !== 0,
          size: stats.size,
        });
      } else {
        entries.push({
          kind: 'special',
          path,
          what: stats.isFIFO() ? 'a FIFO' : stats.isSocket() ? 'a socket' : 'a device',
        });
      }
    }
  };
  await walk(folder, '', 0);
  return entries;
}

async function skillFolders(folder: string, depth: number): Promise<string[]> {
  const names = await readdir(folder, { withFileTypes: true });
  if (names.some((entry) => entry.name === 'SKILL.md' && entry.isFile())) return [folder];
  if (depth >= 8) return [];
  const found: string[] = [];
  for (const entry of names.sort((left, right) => (left.name < right.name ? -1 : 1)))
    if (entry.isDirectory() && !unhashedFolderNames.has(entry.name))
      found.push(...(await skillFolders(join(folder, entry.name), depth + 1)));
  return found;
}

/**
 * Scans a skill folder, or every skill folder below `path`, as it is on disk: links and special
 * files are reported rather than followed or read. Each report is named by the folder relative to
 * `path` (the folder's own name when `path` is the skill).
 */
export async function scanSkillFolders(path: string): Promise<SkillScanReport[]> {
  const reports: SkillScanReport[] = [];
  for (const folder of await skillFolders(path, 0)) {
    const name = folder === path ? basename(path) : relative(path, folder).split(sep).join('/');
    reports.push(scanSkill(name, await entriesOf(folder)));
  }
  return reports;
}
