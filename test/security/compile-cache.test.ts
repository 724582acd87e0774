// Attack: the command line keeps V8's compiled code on disk (Node 22.1+, bin/skillbox.js). Whoever
// can write that folder could hand the next `skillbox` process code to run, so the cache is used
// only in a folder that is this user's alone, in a parent that is too.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/skillbox.js', import.meta.url));
const compileCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';
if (!compileCache)
  console.log(
    `skipping the compile cache tests: Node ${process.version} has no module.enableCompileCache (Node 22.1+)`,
  );

const folder = mkdtempSync(join(tmpdir(), 'skillbox-compile-cache-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const skills = join(folder, 'skills', 'probe');
mkdirSync(skills, { recursive: true });
writeFileSync(join(skills, 'SKILL.md'), '---\nname: probe\ndescription: Probe skill.\n---\nBody.\n');

/** Runs `skillbox list` with `cacheHome` as its cache home and returns what the cache folder holds. */
function listWith(cacheHome: string): string[] {
  const output = execFileSync(process.execPath, [bin, 'list', '--root', join(folder, 'skills')], {
    env: { PATH: process.env.PATH, HOME: cacheHome, XDG_CACHE_HOME: cacheHome },
    encoding: 'utf8',
  });
  expect(output).toContain('probe');
  try {
    return readdirSync(join(cacheHome, 'skillbox', 'compile-cache'));
  } catch {
    return [];
  }
}

describe.runIf(compileCache)("the command line's compile cache", () => {
  it("is written in this user's own cache folder", () => {
    const home = join(folder, 'own');
    mkdirSync(home);
    expect(listWith(home).length).toBeGreaterThan(0);
  });

  it('is not used in a folder others can write, nor under a parent others can write', () => {
    for (const open of ['compile-cache', '.']) {
      const home = join(folder, `open-${open === '.' ? 'parent' : 'folder'}`);
      const cache = join(home, 'skillbox', 'compile-cache');
      mkdirSync(cache, { recursive: true, mode: 0o700 });
      chmodSync(join(home, 'skillbox', open), 0o777);
      expect(listWith(home)).toEqual([]);
    }
  });

  // Whoever can write a folder higher up (a shared XDG_CACHE_HOME, a ~/.cache of another user) can
  // rename the user's own `skillbox` folder away and put theirs in its place, between the check
  // and the start, or any time before a later one that reads the cache.
  it('is not used below a folder others can write, reached directly or through a link', () => {
    const shared = join(folder, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    expect(listWith(shared)).toEqual([]);
    const linked = join(folder, 'linked');
    symlinkSync(shared, linked);
    expect(listWith(linked)).toEqual([]);
    // Owned by another user (here as root, who can make one): they may write it whatever its mode.
    if (process.getuid?.() === 0) {
      const theirs = join(folder, 'theirs');
      mkdirSync(theirs, { mode: 0o755 });
      chownSync(theirs, 65534, 65534);
      expect(listWith(theirs)).toEqual([]);
    }
  });

  it("is used below a sticky folder others can write (as /tmp): what is this user's in it stays theirs", () => {
    const sticky = join(folder, 'sticky');
    mkdirSync(sticky);
    chmodSync(sticky, 0o1777);
    const home = join(sticky, 'own');
    mkdirSync(home, { mode: 0o700 });
    expect(listWith(home).length).toBeGreaterThan(0);
  });
});
