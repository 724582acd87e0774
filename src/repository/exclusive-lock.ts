import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Options of `withExclusiveLock`. */
export interface ExclusiveLockOptions {
  /** Give up waiting after this many milliseconds (default 120,000). */
  readonly timeoutMs?: number;
  /** Called once when the lock is held by someone else and this call starts waiting. */
  readonly onWait?: (holder: string) => void;
}

interface Holder {
  pid: number;
  host: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function holderOf(lockFolder: string): Promise<Holder | undefined> {
  try {
    const parsed = JSON.parse(await readFile(join(lockFolder, 'owner.json'), 'utf8')) as Holder;
    return typeof parsed.pid === 'number' && typeof parsed.host === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes a lock whose holder died. Two waiters may both see the dead holder; the second one must
 * not remove the lock the first took after clearing it, so clearing happens under a second lock
 * and only while the dead process is still the recorded holder.
 */
async function breakDeadLock(lockFolder: string, deadPid: number): Promise<void> {
  const breaking = `${lockFolder}.breaking`;
  try {
    await mkdir(breaking);
  } catch {
    return;
  }
  try {
    if ((await holderOf(lockFolder))?.pid === deadPid) await rm(lockFolder, { recursive: true, force: true });
  } finally {
    await rm(breaking, { recursive: true, force: true });
  }
}

/**
 * Runs `work` while holding a lock that other processes on this machine (and this one) respect: a
 * folder created with `mkdir`, which succeeds for exactly one caller. A lock whose holder process
 * is gone (killed mid-install) is taken over, so a crash does not block the next install forever.
 * Written here rather than taken from npm because the one well-known package (proper-lockfile)
 * judges staleness by modification time, which a paused process can outlive, while a pid check
 * cannot mistake a live holder for a dead one.
 */
export async function withExclusiveLock<T>(
  lockFolder: string,
  work: () => Promise<T>,
  options: ExclusiveLockOptions = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  await mkdir(dirname(lockFolder), { recursive: true });
  let waited = false;
  let pause = 10;
  for (;;) {
    try {
      await mkdir(lockFolder);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await holderOf(lockFolder);
    if (holder !== undefined && holder.host === hostname() && !isAlive(holder.pid)) {
      await breakDeadLock(lockFolder, holder.pid);
      continue;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${lockFolder}, held by ${holder === undefined ? 'a process starting up' : `process ${holder.pid} on ${holder.host}`}`,
      );
    if (!waited) {
      waited = true;
      options.onWait?.(holder === undefined ? 'another process' : `process ${holder.pid}`);
    }
    await sleep(pause + Math.random() * pause);
    pause = Math.min(pause * 2, 200);
  }
  try {
    await writeFile(join(lockFolder, 'owner.json'), JSON.stringify({ pid: process.pid, host: hostname() }));
    return await work();
  } finally {
    await rm(lockFolder, { recursive: true, force: true });
  }
}
