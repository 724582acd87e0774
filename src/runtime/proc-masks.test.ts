import type * as fs from 'node:fs';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// A root walk that could not read a folder of /proc (out of descriptors in a busy process, say)
// misses what that folder holds. Such a process makes do with what it found, but the answer is not
// kept for every later process of this boot: the next one walks again.
const failing = { folder: '' };
vi.mock('node:fs', async (original) => {
  const actual = await original<typeof import('node:fs')>();
  return {
    ...actual,
    readdirSync: ((path: fs.PathLike, ...rest: unknown[]) => {
      if (path === failing.folder) throw Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
      return (actual.readdirSync as (...args: unknown[]) => unknown)(path, ...rest);
    }) as typeof actual.readdirSync,
  };
});

const asRoot = process.getuid?.() === 0;
let cacheHome: string;
const saved = { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME, SKILLBOX_HOST_PROBES: process.env.SKILLBOX_HOST_PROBES };
beforeEach(() => {
  cacheHome = mkdtempSync(join(tmpdir(), 'skillbox-proc-masks-walk-'));
  process.env.XDG_CACHE_HOME = cacheHome;
  delete process.env.SKILLBOX_HOST_PROBES;
  vi.resetModules();
});
afterEach(() => {
  failing.folder = '';
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(cacheHome, { recursive: true, force: true });
});

/** procMasks as a new process would find it (a fresh module, the same cache). */
async function inNewProcess() {
  vi.resetModules();
  const { procMasks } = await import('./proc-masks.js');
  return procMasks();
}

describe.runIf(asRoot)("the root walk's kept answer", () => {
  it('is not kept when a folder could not be read', async () => {
    const whole = await inNewProcess();
    const inSys = (list: string[]) => list.filter((path) => path.startsWith('/proc/sys/'));
    expect(inSys(whole.files).length).toBeGreaterThan(0);
    rmSync(join(cacheHome, 'skillbox'), { recursive: true, force: true });
    failing.folder = '/proc/sys';
    const partial = await inNewProcess();
    expect(inSys(partial.files)).toEqual([]);
    failing.folder = '';
    expect(await inNewProcess()).toEqual(whole);
  });

  // The fixed list (kernel symbols and memory, the key listings, the SysRq trigger) needs no walk:
  // a kept answer without it, however it came to be there, is not used.
  it('is not used when it leaves out what is masked without a walk', async () => {
    const whole = await inNewProcess();
    const file = join(cacheHome, 'skillbox', 'host-probes.json');
    const entries = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { answer: unknown }>;
    expect(entries['proc-masks']?.answer).toEqual(whole);
    (entries['proc-masks'] as { answer: unknown }).answer = { files: [], folders: [] };
    writeFileSync(file, JSON.stringify(entries), { mode: 0o600 });
    expect(await inNewProcess()).toEqual(whole);
  });
});
