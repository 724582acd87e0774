import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostProbeCache, probeIdentity } from './host-probe-cache.js';

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
  it('gives an answer back to a later process under the same identity, and nothing under another', () => {
    const home = cacheHome();
    const identity = probeIdentity(['/bin/true']);
    hostProbeCache({ XDG_CACHE_HOME: home }).set('bubblewrap', identity, { sizedTmpfs: true });
    // A new cache object reads the file again, as a new process would.
    expect(hostProbeCache({ XDG_CACHE_HOME: home }).get('bubblewrap', identity)).toEqual({ sizedTmpfs: true });
    expect(hostProbeCache({ XDG_CACHE_HOME: home }).get('bubblewrap', probeIdentity(['/bin/false']))).toBeUndefined();
    expect(hostProbeCache({ XDG_CACHE_HOME: home }).get('prelude', identity)).toBeUndefined();
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

  it('takes a malformed file for an empty one and writes a whole one over it', () => {
    const home = cacheHome();
    mkdirSync(join(home, 'skillbox'), { mode: 0o700 });
    writeFileSync(join(home, 'skillbox', 'host-probes.json'), '{"bubblewrap": [', { mode: 0o600 });
    const identity = probeIdentity([]);
    expect(hostProbeCache({ XDG_CACHE_HOME: home }).get('bubblewrap', identity)).toBeUndefined();
    hostProbeCache({ XDG_CACHE_HOME: home }).set('bubblewrap', identity, { sizedTmpfs: false });
    expect(hostProbeCache({ XDG_CACHE_HOME: home }).get('bubblewrap', identity)).toEqual({ sizedTmpfs: false });
  });

  it('ignores a file others can write, as it would one planted by another user', () => {
    const home = cacheHome();
    const identity = probeIdentity([]);
    // Written as a process would write it, then opened to others before this process reads it
    // (a process reads the file once: what it wrote itself it keeps).
    mkdirSync(join(home, 'skillbox'), { recursive: true, mode: 0o700 });
    const file = join(home, 'skillbox', 'host-probes.json');
    writeFileSync(file, JSON.stringify({ 'prelude-cgroup-join': { identity, answer: true } }), { mode: 0o600 });
    chmodSync(file, 0o666);
    expect(hostProbeCache({ XDG_CACHE_HOME: home }).get('prelude-cgroup-join', identity)).toBeUndefined();
  });
});
