import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listInstalledEntries, statSignature } from './installed-skill-files.js';
import { fileSha256, skillsCliComputedHash } from './skill-digest.js';
import type { SkillsLockEntry } from './skills-lock-file.js';

/**
 * Signatures of files already found equal to the lock, so a later check of an unchanged file costs a
 * stat and no read. Keyed by absolute path; a folder-wide key holds the signature of a whole folder
 * checked by `computedHash` (an entry the `skills` CLI wrote, without per-file hashes).
 */
export type VerifiedSignatures = Map<string, string>;

const executableBits = 0o111;

/**
 * Every way the installed folder differs from its lock entry, each naming a file: content changed,
 * added, removed, a link or special file where the lock has none, executable bit changed. With
 * skillbox's per-file hashes a file is read only when its size, times or inode moved since it was
 * last found equal (`verified`); an entry the `skills` CLI wrote is checked by its `computedHash`.
 */
export async function compareInstalledSkill(
  folder: string,
  entry: SkillsLockEntry,
  verified: VerifiedSignatures = new Map(),
): Promise<string[]> {
  let entries: Awaited<ReturnType<typeof listInstalledEntries>>;
  try {
    entries = await listInstalledEntries(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return [code === 'ENOENT' ? `${folder}: the skill folder is missing` : `${folder}: ${(error as Error).message}`];
  }
  const differences: string[] = [];
  for (const item of entries) {
    if (item.kind === 'link') differences.push(`${item.path}: a link, which the lock does not record`);
    else if (item.kind === 'other') differences.push(`${item.path}: not a regular file`);
  }
  const files = entries.filter((item) => item.kind === 'file');
  const locked = entry.skillbox?.files;
  if (locked === undefined) {
    const folderKey = `${folder}\0computedHash`;
    const signature = files.map((item) => `${item.path}=${statSignature(item.stats)}`).join('\n');
    if (differences.length === 0 && verified.get(folderKey) === signature) return [];
    const contents = await Promise.all(
      files.map(async (item) => ({ path: item.path, bytes: await readFile(join(folder, item.path)) })),
    );
    if (skillsCliComputedHash(contents) === entry.computedHash) verified.set(folderKey, signature);
    else
      differences.push(
        "a file was changed, added or removed since the skill was installed (its files no longer give the lock entry's computedHash)",
      );
    return differences;
  }
  const present = new Set<string>();
  await Promise.all(
    files.map(async (item) => {
      present.add(item.path);
      const expected = locked[item.path];
      if (expected === undefined) {
        differences.push(`${item.path}: added (not in the lock)`);
        return;
      }
      const absolute = join(folder, item.path);
      const signature = statSignature(item.stats);
      if ((expected.executable === true) !== ((item.stats.mode & executableBits) !== 0))
        differences.push(`${item.path}: executable bit ${expected.executable === true ? 'removed' : 'added'}`);
      if (verified.get(absolute) === signature) return;
      if (item.stats.size !== expected.size) {
        differences.push(`${item.path}: content changed (${item.stats.size} bytes, the lock says ${expected.size})`);
        return;
      }
      if (fileSha256(await readFile(absolute)) !== expected.sha256) {
        differences.push(`${item.path}: content changed (sha256 differs from the lock)`);
        return;
      }
      verified.set(absolute, signature);
    }),
  );
  for (const path of Object.keys(locked)) if (!present.has(path)) differences.push(`${path}: removed`);
  return differences.sort();
}
