import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

/**
 * What importing a module loads before any of its code runs: the files of its bundle chunk and of
 * the chunks that chunk imports statically (a dynamic import() becomes a chunk of its own, loaded
 * only when it runs). esbuild resolves as Node does, so this is the import a user's process makes.
 */
async function loadedOnImport(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    outdir: '/nowhere',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = (result.metafile as Metafile).outputs;
  const entryOutput = Object.keys(outputs).find((output) => outputs[output]?.entryPoint !== undefined) as string;
  const loaded = new Set<string>();
  const pending = [entryOutput];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const output = pending.pop() as string;
    if (seen.has(output)) continue;
    seen.add(output);
    for (const input of Object.keys(outputs[output]?.inputs ?? {})) loaded.add(input);
    for (const imported of outputs[output]?.imports ?? [])
      if (imported.kind === 'import-statement' && imported.path in outputs) pending.push(imported.path);
  }
  return [...loaded];
}

const packageOf = (input: string): string | undefined => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];

describe('importing FsSkillRepository', () => {
  it('loads no package (zod, yaml), nor the URL root or lockfile code: a repository of local folders never runs them', async () => {
    const loaded = await loadedOnImport('./fs-skill-repository.ts');
    const packages = new Set(loaded.map(packageOf).filter((name) => name !== undefined));
    // yaml loads on first use (format/yaml-library.ts): the fast reader answers most files without it.
    expect([...packages]).toEqual([]);
    const own = loaded.filter((input) => input.startsWith('src/'));
    expect(own).toContain('src/repository/scan-skill-root.ts');
    for (const deferred of ['src/repository/url-root.ts', 'src/repository/locked-skill-check.ts'])
      expect(own).not.toContain(deferred);
  });

  // The root entry reaches each of these: a schema built at import would load zod with `skillbox`.
  const rootReached = [
    './combine-repositories.ts',
    './filter-skills.ts',
    './create-bundled-file-rule.ts',
    './url-root.ts',
    './archive/archive-limits.ts',
  ];
  for (const entry of rootReached)
    it(`${entry.slice(2)} checks its options without loading zod`, async () => {
      const packages = (await loadedOnImport(entry)).map(packageOf);
      expect(packages).not.toContain('zod');
    });
});

describe('importing skillbox', () => {
  it('does not load yaml: only a frontmatter the fast reader declines needs it', async () => {
    const packages = new Set((await loadedOnImport('../index.ts')).map(packageOf));
    expect(packages.has('yaml')).toBe(false);
  });
});
