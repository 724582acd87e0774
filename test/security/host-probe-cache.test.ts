// The host probe cache (src/runtime/host-probe-cache.ts) decides whether a process starts a sandbox
// to find out whether sandboxes work, whether the compiled prelude runs and whether it may join
// cgroups. Whoever can write it could make every later sandbox start on a wrong answer (a prelude
// said to join cgroups that cannot, so every capped run fails; a bubblewrap said to size tmpfs that
// cannot). The attacks: a cache planted by another user, one others can write, one reached through
// a link, and a program swapped after its answer was kept.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostProbeCache, probeIdentity } from '../../src/runtime/host-probe-cache.js';

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

  it('does not write into a cache folder others may write, where they could swap the file', () => {
    const home = join(folder, 'open-folder');
    mkdirSync(join(home, 'skillbox'), { recursive: true });
    chmodSync(join(home, 'skillbox'), 0o777);
    hostProbeCache({ XDG_CACHE_HOME: home }).set('bubblewrap', identity, { sizedTmpfs: true });
    chmodSync(join(home, 'skillbox'), 0o700);
    expect(hostProbeCache({ XDG_CACHE_HOME: home }).get('bubblewrap', identity)).toBeUndefined();
  });

  it('asks again about a program replaced after its answer was kept', () => {
    const home = join(folder, 'swapped');
    const program = join(folder, 'prelude');
    writeFileSync(program, 'first', { mode: 0o755 });
    const before = probeIdentity([program]);
    hostProbeCache({ XDG_CACHE_HOME: home }).set('prelude', before, 'ok');
    rmSync(program);
    writeFileSync(program, 'other', { mode: 0o755 });
    expect(hostProbeCache({ XDG_CACHE_HOME: home }).get('prelude', probeIdentity([program]))).toBeUndefined();
  });
});
