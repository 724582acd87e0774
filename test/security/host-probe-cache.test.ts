// The host probe cache (src/runtime/host-probe-cache.ts) decides whether a process starts a sandbox
// to find out whether sandboxes work, whether the compiled prelude runs and whether it may join
// cgroups. Whoever can write it could make every later sandbox start on a wrong answer (a prelude
// said to join cgroups that cannot, so every capped run fails; a bubblewrap said to size tmpfs that
// cannot). The attacks: a cache planted by another user, one others can write, one reached through
// a link, and a program swapped after its answer was kept.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { hostProbeCache, probeIdentity } from '../../src/runtime/host-probe-cache.js';

/**
 * The cache as a later process finds it: a fresh copy of the module, which has read nothing yet. A
 * process reads the file once and keeps what it read and wrote, so asking this one again would
 * prove nothing about what the file holds.
 */
async function laterProcess(env: NodeJS.ProcessEnv): Promise<ReturnType<typeof hostProbeCache>> {
  vi.resetModules();
  const fresh = await import('../../src/runtime/host-probe-cache.js');
  return fresh.hostProbeCache(env);
}

const folder = mkdtempSync(join(tmpdir(), 'skillbox-probe-attack-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const isRoot = process.getuid?.() === 0;

function plant(home: string, entries: Record<string, unknown>, mode = 0o600): string {
  mkdirSync(join(home, 'skillbox'), { recursive: true, mode: 0o700 });
  const file = join(home, 'skillbox', 'host-probes.json');
  writeFileSync(file, JSON.stringify(entries), { mode });
  chmodSync(file, mode);
  return file;
}

describe('host probe cache: answers only this user could have written', () => {
  const identity = probeIdentity(['/bin/true']);
  const lie = { 'prelude-cgroup-join': { identity, answer: true }, prelude: { identity, answer: 'anything' } };

  it('ignores a cache others may write (mode 0666)', () => {
    const home = join(folder, 'writable');
    plant(home, lie, 0o666);
    expect(hostProbeCache({ XDG_CACHE_HOME: home }).get('prelude-cgroup-join', identity)).toBeUndefined();
  });

  it.runIf(isRoot)('ignores a cache owned by another user, even when only its owner may write it', () => {
    const home = join(folder, 'foreign');
    const file = plant(home, lie);
    chownSync(file, 65534, 65534);
    expect(hostProbeCache({ XDG_CACHE_HOME: home }).get('prelude-cgroup-join', identity)).toBeUndefined();
  });

  it('ignores a cache that is a link to a file the attacker controls', () => {
    const home = join(folder, 'linked');
    const elsewhere = join(folder, 'elsewhere.json');
    writeFileSync(elsewhere, JSON.stringify(lie), { mode: 0o600 });
    mkdirSync(join(home, 'skillbox'), { recursive: true, mode: 0o700 });
    symlinkSync(elsewhere, join(home, 'skillbox', 'host-probes.json'));
    expect(hostProbeCache({ XDG_CACHE_HOME: home }).get('prelude-cgroup-join', identity)).toBeUndefined();
  });

  it('does not write into a cache folder others may write, where they could swap the file', async () => {
    const home = join(folder, 'open-folder');
    mkdirSync(join(home, 'skillbox'), { recursive: true });
    chmodSync(join(home, 'skillbox'), 0o777);
    hostProbeCache({ XDG_CACHE_HOME: home }).set('bubblewrap', identity, { sizedTmpfs: true });
    chmodSync(join(home, 'skillbox'), 0o700);
    expect((await laterProcess({ XDG_CACHE_HOME: home })).get('bubblewrap', identity)).toBeUndefined();
  });

  // Whoever may write the folder holding the cache, or one above it, can put there a file of this
  // user's they did not write for it: one this user wrote into a folder of theirs (an output a
  // skill command chose), renamed in. Owner and mode of the file then prove nothing.
  it('ignores a file of this user in a cache folder others may write', () => {
    const home = join(folder, 'open-folder-read');
    plant(home, lie);
    chmodSync(join(home, 'skillbox'), 0o777);
    expect(hostProbeCache({ XDG_CACHE_HOME: home }).get('prelude-cgroup-join', identity)).toBeUndefined();
  });

  it('ignores a cache below a folder others may write, reached directly or through a link', async () => {
    const home = join(folder, 'open-home');
    plant(home, lie);
    chmodSync(home, 0o777);
    expect(hostProbeCache({ XDG_CACHE_HOME: home }).get('prelude-cgroup-join', identity)).toBeUndefined();
    const linked = join(folder, 'open-home-link');
    symlinkSync(home, linked);
    expect(hostProbeCache({ XDG_CACHE_HOME: linked }).get('prelude-cgroup-join', identity)).toBeUndefined();
    // Nor is an answer written there.
    hostProbeCache({ XDG_CACHE_HOME: home }).set('bubblewrap', identity, { sizedTmpfs: true });
    chmodSync(home, 0o700);
    expect((await laterProcess({ XDG_CACHE_HOME: home })).get('bubblewrap', identity)).toBeUndefined();
  });

  it.runIf(isRoot)("ignores a cache in a folder owned by another user (a sudo that kept the user's HOME)", () => {
    const home = join(folder, 'their-home');
    plant(home, lie);
    chownSync(home, 65534, 65534);
    chmodSync(home, 0o755);
    expect(hostProbeCache({ XDG_CACHE_HOME: home }).get('prelude-cgroup-join', identity)).toBeUndefined();
  });

  it('keeps answers below a sticky folder others may write (as /tmp), in a folder of this user', async () => {
    const sticky = join(folder, 'sticky');
    mkdirSync(sticky);
    chmodSync(sticky, 0o1777);
    const home = join(sticky, 'own');
    mkdirSync(home, { mode: 0o700 });
    hostProbeCache({ XDG_CACHE_HOME: home }).set('bubblewrap', identity, { sizedTmpfs: true });
    expect((await laterProcess({ XDG_CACHE_HOME: home })).get('bubblewrap', identity)).toEqual({ sizedTmpfs: true });
  });

  it('asks again about a program replaced after its answer was kept', async () => {
    const home = join(folder, 'swapped');
    const program = join(folder, 'prelude');
    writeFileSync(program, 'first', { mode: 0o755 });
    const before = probeIdentity([program]);
    hostProbeCache({ XDG_CACHE_HOME: home }).set('prelude', before, 'ok');
    rmSync(program);
    writeFileSync(program, 'other', { mode: 0o755 });
    expect((await laterProcess({ XDG_CACHE_HOME: home })).get('prelude', probeIdentity([program]))).toBeUndefined();
  });
});
