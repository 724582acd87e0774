import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostWorkspaceFiles } from '../../src/runtime/host-workspace-files.js';
import { compileGlob } from '../../src/workspace/outputs/glob-pattern.js';
import { findOutputs } from '../../src/workspace/outputs/output-collector.js';
import { workspaceSecurityFixture } from './workspace-fixture.js';

/**
 * An `output_files` pattern is model input, a file name is whatever the sandboxed process wrote:
 * matching one against the other runs on the Node event loop, so it must stay cheap for any pair.
 * A backtracking regex for `*a*a*a…b` takes time growing with name length to the power of the
 * star count (seconds for a 40-character name, hours for 255), stopping every session at once.
 */
const evilPattern = `out/${'*a'.repeat(20)}*b`;
const longName = 'a'.repeat(255);

describe('output globs cannot stall the event loop', () => {
  it('matches a many-star pattern against a 255-byte name at once', () => {
    const glob = compileGlob(evilPattern);
    const started = performance.now();
    expect(glob.matches(`out/${longName}`)).toBe(false);
    expect(glob.matches(`out/${longName}b`.slice(0, 4 + 255))).toBe(false);
    expect(glob.matches(`out/${'a'.repeat(40)}b`)).toBe(true);
    expect(performance.now() - started).toBeLessThan(250);
  });

  it('bounds a `**` chain against a deep path of long names', () => {
    const glob = compileGlob(`${'**/*a*a*a*a*a/'.repeat(20)}*b`);
    const deep = Array.from({ length: 15 }, () => 'a'.repeat(255)).join('/');
    const started = performance.now();
    expect(glob.matches(deep)).toBe(false);
    expect(performance.now() - started).toBeLessThan(250);
  });

  it('refuses a pattern whose braces would expand without bound, naming it', () => {
    const pattern = `out/${'{a,b}'.repeat(30)}`;
    expect(() => compileGlob(pattern)).toThrow(/expand to more than 256 alternatives/);
    expect(() => compileGlob(`out/${'x'.repeat(5000)}`)).toThrow(/longer than 1024 characters/);
  });

  describe.runIf(process.platform === 'linux')('through skill_run, in the sandbox', () => {
    let fixture: Awaited<ReturnType<typeof workspaceSecurityFixture>>;
    beforeAll(async () => {
      fixture = await workspaceSecurityFixture();
    });
    afterAll(async () => {
      await fixture.dispose();
    });

    it("returns promptly when the process names files to make the model's pattern slow", async () => {
      const started = performance.now();
      const result = await fixture.run({
        command: `mkdir -p out/d && for i in 1 2 3 4 5 6 7 8; do touch out/${'a'.repeat(250)}$i; touch out/d/${'a'.repeat(250)}$i; done`,
        output_files: [evilPattern, `out/**/${'*a'.repeat(20)}*b`],
      });
      expect(result.exit_code).toBe(0);
      expect(result.output_files).toEqual([]);
      expect(performance.now() - started).toBeLessThan(5_000);
    });
  });
});

describe('output walks are bounded', () => {
  let fixture: Awaited<ReturnType<typeof workspaceSecurityFixture>>;
  let root: string;
  beforeAll(async () => {
    fixture = await workspaceSecurityFixture();
    root = path.join(fixture.root, 'tree');
    // 300 folders of 200 files: more entries than one collection may visit.
    for (let folder = 0; folder < 300; folder += 1) {
      const directory = path.join(root, 'out', `f${folder}`);
      await mkdir(directory, { recursive: true });
      await Promise.all(Array.from({ length: 200 }, (_, file) => writeFile(path.join(directory, `n${file}`), '')));
    }
  }, 120_000);
  afterAll(async () => {
    await fixture.dispose();
  });

  it('stops after the walk budget and says so', async () => {
    const found = await findOutputs(new HostWorkspaceFiles(root), ['out/**/nomatch']);
    expect(found.matches).toEqual([]);
    expect(found.warnings.join('\n')).toMatch(/walked more than 50000 entries/);
  });

  it('stops after the matching budget and says so, within a bounded time', async () => {
    // Names and pattern chosen for the most work per match: every `*` must try each position.
    const long = path.join(fixture.root, 'long');
    await mkdir(path.join(long, 'out'), { recursive: true });
    await Promise.all(
      Array.from({ length: 3000 }, (_, file) => writeFile(path.join(long, 'out', `${'a'.repeat(240)}${file}`), '')),
    );
    const started = performance.now();
    const found = await findOutputs(new HostWorkspaceFiles(long), [
      `out/*${'a'.repeat(120)}b`,
      `out/**/*${'a'.repeat(120)}b`,
    ]);
    const elapsed = performance.now() - started;
    expect(found.matches).toEqual([]);
    expect(found.warnings.join('\n')).toMatch(/too much matching work/);
    expect(elapsed).toBeLessThan(3_000);
  });
});
