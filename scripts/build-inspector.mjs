// Bundles the inspector's page (src/inspector/ui/) into dist/inspector/: app.js with Preact inside,
// minified, and app.css. The package ships these two files; users need no build step.
//   node scripts/build-inspector.mjs [OUT_DIR]
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Writes app.js and app.css into `outDir`; returns their sizes in bytes. */
export async function buildInspectorAssets(outDir) {
  mkdirSync(outDir, { recursive: true });
  const result = await build({
    entryPoints: [join(root, 'src', 'inspector', 'ui', 'inspector-app.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    outfile: join(outDir, 'app.js'),
    metafile: true,
    logLevel: 'warning',
  });
  copyFileSync(join(root, 'src', 'inspector', 'ui', 'inspector-app.css'), join(outDir, 'app.css'));
  return Object.fromEntries(Object.entries(result.metafile.outputs).map(([file, output]) => [file, output.bytes]));
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = resolve(process.argv[2] ?? join(root, 'dist', 'inspector'));
  const sizes = await buildInspectorAssets(outDir);
  console.log(
    `build-inspector: ${Object.entries(sizes)
      .map(([file, bytes]) => `${file} ${bytes} bytes`)
      .join(', ')}`,
  );
}
