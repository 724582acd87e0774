import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hostProbeCache, probeIdentity } from './host-probe-cache.js';

/**
 * The cache as a later process finds it: a fresh copy of the module, which has read nothing yet (a
 * process reads the file once and keeps what it read and wrote, so this one would not read it).
 */
async function laterProcess(env: NodeJS.ProcessEnv): Promise<ReturnType<typeof hostProbeCache>> {
  vi.resetModules();
  const fresh = await import('./host-probe-cache.js');
  return fresh.hostProbeCache(env);
}

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function cacheHome(): string {
  const folder = mkdtempSync(join(tmpdir(), 'skillbox-probes-'));
  folders.push(folder);
  return folder;
}

describe('hostProbeCache', () => {
  it('gives an answer back to a later process under the same identity, and nothing under another', async () => {
    const home = cacheHome();
    const identity = probeIdentity(['/bin/true']);
    hostProbeCache({ XDG_CACHE_HOME: home }).set('bubblewrap', identity, { sizedTmpfs: true });
    const later = await laterProcess({ XDG_CACHE_HOME: home });
    expect(later.get('bubblewrap', identity)).toEqual({ sizedTmpfs: true });
    expect(later.get('bubblewrap', probeIdentity(['/bin/false']))).toBeUndefined();
    expect(later.get('prelude', identity)).toBeUndefined();
    const file = join(home, 'skillbox', 'host-probes.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).bubblewrap.identity).toBe(identity);
  });

  it('keys an answer on the program file: replacing or touching it asks again', () => {
    const home = cacheHome();
    const program = join(home, 'program');
    writeFileSync(program, '#!/bin/sh\n');
    const before = probeIdentity([program]);
    expect(probeIdentity([program])).toBe(before);
    utimesSync(program, new Date(2000, 1, 1), new Date(2000, 1, 1));
    expect(probeIdentity([program])).not.toBe(before);
    rmSync(program);
    expect(probeIdentity([program])).not.toBe(before);
  });

  it('keeps nothing and reads nothing when turned off', () => {
    const home = cacheHome();
    const identity = probeIdentity([]);
    hostProbeCache({ XDG_CACHE_HOME: home, SKILLBOX_HOST_PROBES: 'off' }).set('prelude', identity, 'yes');
    expect(() => statSync(join(home, 'skillbox', 'host-probes.json'))).toThrow();
    hostProbeCache({ XDG_CACHE_HOME: home }).set('prelude', identity, 'yes');
    expect(
      hostProbeCache({ XDG_CACHE_HOME: home, SKILLBOX_HOST_PROBES: 'off' }).get('prelude', identity),
    ).toBeUndefined();
  });

  it('takes a malformed file for an empty one and writes a whole one over it', async () => {
    const home = cacheHome();
    mkdirSync(join(home, 'skillbox'), { mode: 0o700 });
    writeFileSync(join(home, 'skillbox', 'host-probes.json'), '{"bubblewrap": [', { mode: 0o600 });
    const identity = probeIdentity([]);
    expect(hostProbeCache({ XDG_CACHE_HOME: home }).get('bubblewrap', identity)).toBeUndefined();
    hostProbeCache({ XDG_CACHE_HOME: home }).set('bubblewrap', identity, { sizedTmpfs: false });
    expect((await laterProcess({ XDG_CACHE_HOME: home })).get('bubblewrap', identity)).toEqual({ sizedTmpfs: false });
  });

  it('ignores a file others can write, as it would one planted by another user', async () => {
    const home = cacheHome();
    const identity = probeIdentity([]);
    hostProbeCache({ XDG_CACHE_HOME: home }).set('prelude-cgroup-join', identity, true);
    const file = join(home, 'skillbox', 'host-probes.json');
    chmodSync(file, 0o666);
    expect((await laterProcess({ XDG_CACHE_HOME: home })).get('prelude-cgroup-join', identity)).toBeUndefined();
  });

  it('keeps what it read for the rest of the process: a file changed meanwhile is for the next one', async () => {
    const home = cacheHome();
    const identity = probeIdentity([]);
    const cache = await laterProcess({ XDG_CACHE_HOME: home });
    expect(cache.get('prelude', identity)).toBeUndefined();
    mkdirSync(join(home, 'skillbox'), { recursive: true, mode: 0o700 });
    writeFileSync(join(home, 'skillbox', 'host-probes.json'), JSON.stringify({ prelude: { identity, answer: 'ok' } }), {
      mode: 0o600,
    });
    expect(cache.get('prelude', identity)).toBeUndefined();
    expect((await laterProcess({ XDG_CACHE_HOME: home })).get('prelude', identity)).toBe('ok');
  });
});
