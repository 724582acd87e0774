// Bundles the JavaScript tsc wrote to dist/ into one file per package entry (and per CLI entry),
// with the code two entries share in dist/chunks/. Why: Node loads each ES module as a file of its
// own, and `import('skillbox')` was 212 of them; one file per entry loads the same code with a
// fraction of the resolution and file reads (docs/benchmarks.md, "Cold start"). A dynamic
// `import()` stays lazy: esbuild gives it a chunk of its own, loaded when it runs.
//
// The declaration files (.d.ts) stay as tsc wrote them. Packages stay external (users' npm
// installs dedupe them, and optional peers must stay optional). Every other .js file is removed:
// the package ships the library's code once, and the command line's copy of what it uses.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const packageEntries = Object.values(manifest.exports)
  .filter((target) => typeof target === 'object' && typeof target.default === 'string')
  .map((target) => join(root, target.default));
// bin/skillbox.js imports these two by path: the command line and its fast `--version`.
const cliEntries = ['cli/main.js', 'cli/package-version.js'].map((file) => join(dist, file));
// zod goes into the command line's own chunks: as 95 module files it was a quarter of a
// `skillbox run`'s start-up. Its instances share their registry and config through globalThis,
// so a schema made by this copy reads the same in the `ai` and MCP packages' own zod.
const cliBundledPackages = ['zod'];

// The command line is a program of its own, bundled apart: sharing chunks with the library's
// entries would split the library's code into many small files for every combination of entries
// and commands that reaches it. Built first, since the library build overwrites its entry files.
const cli = await bundle(cliEntries, 'cli/chunks/[name]-[hash]', cliBundledPackages);
const library = await bundle(packageEntries, 'chunks/[name]-[hash]');

const written = new Set([...cli, ...library]);
let removed = 0;
for (const file of listFiles(dist)) {
  if (file.endsWith('.js') && !written.has(file)) {
    rmSync(file);
    removed += 1;
  }
}
console.log(
  `bundle-dist: ${written.size} files (${packageEntries.length + cliEntries.length} entries), ${removed} module files removed`,
);

/** The files one esbuild run wrote: the entries over tsc's files, their shared chunks beside. */
async function bundle(entryPoints, chunkNames, bundledPackages = []) {
  const result = await build({
    entryPoints,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    ...(bundledPackages.length === 0
      ? { packages: 'external' }
      : { plugins: [externalPackagesExcept(bundledPackages), englishOnlyZodLocales()] }),
    outdir: dist,
    outbase: dist,
    chunkNames,
    allowOverwrite: true,
    metafile: true,
    logLevel: 'warning',
  });
  return Object.keys(result.metafile.outputs).map((output) => join(root, output));
}

/**
 * Every package import stays external, as `packages: 'external'` makes it, except `bundled` and
 * their subpaths: a package left out of package.json by mistake fails as it would for the library,
 * instead of slipping into the command line's bundle.
 */
function externalPackagesExcept(bundled) {
  const isBundled = (specifier) => bundled.some((name) => specifier === name || specifier.startsWith(`${name}/`));
  return {
    name: 'external-packages-except',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) =>
        isBundled(args.path) ? undefined : { path: args.path, external: true },
      );
    },
  };
}

/**
 * zod's `locales` namespace (64 languages, 361 KB: half of zod's code in the bundle) reduced to
 * English, the locale zod itself sets by default, for the command line's copy only. Nothing in the
 * command line picks another locale, and every `skillbox` command that validates options (run,
 * chat, mcp) compiled all 64 at start-up. The library leaves zod to the user's install, untouched.
 */
function englishOnlyZodLocales() {
  return {
    name: 'english-only-zod-locales',
    setup(build) {
      build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
        /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
          ? { path: join(dirname(args.importer), '..', 'locales', 'en.js'), namespace: 'zod-english-locales' }
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'zod-english-locales' }, (args) => ({
        contents: `export { default as en } from ${JSON.stringify(args.path)};`,
        resolveDir: dirname(args.path),
      }));
    },
  };
}

function listFiles(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(folder, entry.name)) : [join(folder, entry.name)],
  );
}
