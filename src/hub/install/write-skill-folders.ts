import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { FetchedSkill } from '../skill-source.js';

/** One skill swapped into place; `previous` is where the folder it replaced waits until the swap is kept. */
interface Swapped {
  readonly final: string;
  readonly previous: string | undefined;
}

/** A set of skill folders written beside the target and swapped in; `commit` keeps them, `rollback` undoes. */
export interface StagedInstall {
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/**
 * Writes every skill into a staging folder beside `target` (not inside it, where a repository scan
 * would see half-written skills), then renames each into `target/<name>`, moving any folder it
 * replaces into the staging folder. Until `commit()` the old folders are kept, so `rollback()`
 * (a failed lock write, a later rename that failed) restores exactly what was there.
 */
export async function stageAndSwap(target: string, skills: readonly FetchedSkill[]): Promise<StagedInstall> {
  await mkdir(target, { recursive: true });
  const staging = await mkdtemp(join(dirname(target), `.skillbox-staging-${basename(target)}-`));
  const swapped: Swapped[] = [];
  const rollback = async (): Promise<void> => {
    for (const item of swapped.reverse()) {
      await rm(item.final, { recursive: true, force: true });
      if (item.previous !== undefined) await rename(item.previous, item.final);
    }
    swapped.length = 0;
    await rm(staging, { recursive: true, force: true });
  };
  try {
    for (const skill of skills) {
      const folder = join(staging, 'new', skill.name);
      await mkdir(folder, { recursive: true });
      for (const file of skill.files) {
        const path = join(folder, ...file.path.split('/'));
        await mkdir(dirname(path), { recursive: true });
        const mode = file.executable ? 0o755 : 0o644;
        await writeFile(path, file.bytes, { flag: 'wx', mode });
        // The umask may have cleared bits the lock records; set them exactly.
        await chmod(path, mode);
      }
    }
    for (const skill of skills) {
      const final = join(target, skill.name);
      const exists = await stat(final).then(
        () => true,
        () => false,
      );
      const previous = exists ? join(staging, `old-${randomBytes(4).toString('hex')}-${skill.name}`) : undefined;
      if (previous !== undefined) await rename(final, previous);
      try {
        await rename(join(staging, 'new', skill.name), final);
      } catch (error) {
        if (previous !== undefined) await rename(previous, final);
        throw error;
      }
      swapped.push({ final, previous });
    }
  } catch (error) {
    await rollback();
    throw error;
  }
  return {
    commit: () => rm(staging, { recursive: true, force: true }),
    rollback,
  };
}

/** Moves a folder out of `target` and deletes it; the move makes the removal look instant to readers. */
export async function removeSkillFolder(target: string, name: string): Promise<boolean> {
  const final = join(target, name);
  const exists = await stat(final).then(
    () => true,
    () => false,
  );
  if (!exists) return false;
  const doomed = join(dirname(target), `.skillbox-removing-${name}-${randomBytes(4).toString('hex')}`);
  await rename(final, doomed);
  await rm(doomed, { recursive: true, force: true });
  return true;
}
