// Fails when a file under src/ imports from a layer below its own. The layers are read from the
// table in docs/architecture.md ("Layers and folders"), so the page and the check cannot drift: a
// row's paths are the backticked `src/...` names in its folder column, a file belongs to the row
// whose path is the longest prefix of its own, and a row may import only from rows above it and
// itself. Type-only imports count too: a layer that names another's types depends on it.
// `testing/` folders are test support for the whole package (a conformance suite drives the CLI or
// an agent), so they may import any layer; only test files and entry points may import them.
//
//   node scripts/check-layer-direction.mjs
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { relativeImports, repositoryRoot, sourceFiles } from './source-imports.mjs';

const page = 'docs/architecture.md';
const text = readFileSync(join(repositoryRoot, page), 'utf8');
const section = text.slice(text.indexOf('## Layers and folders'));
const rows = [];
for (const line of section.split('\n')) {
  if (rows.length > 0 && !line.startsWith('|')) break;
  const cells = line.split('|').map((cell) => cell.trim());
  if (cells.length < 4 || cells[1] === 'layer' || cells[1].startsWith('---')) continue;
  const paths = [...cells[2].matchAll(/`(src\/[^`]*)`/g)].map(([, path]) => path);
  if (paths.length > 0) rows.push({ layer: cells[1], paths });
}
if (rows.length < 5)
  throw new Error(`${page}: found ${rows.length} layer rows; is the "Layers and folders" table still there?`);

function layerOf(path) {
  let best;
  for (const [index, row] of rows.entries()) {
    for (const prefix of row.paths) {
      const matches = prefix.endsWith('/') ? path.startsWith(prefix) : path === prefix;
      if (matches && (best === undefined || prefix.length > best.prefix.length)) best = { index, prefix };
    }
  }
  return best?.index;
}

const isTestSupport = (path) => path.includes('/testing/');
const isTest = (path) => path.endsWith('.test.ts');
const entryRow = rows.findIndex((row) => row.layer === 'entry points');

const unplaced = new Set();
const violations = [];
for (const file of sourceFiles()) {
  const from = relative(repositoryRoot, file);
  const fromLayer = layerOf(from);
  if (fromLayer === undefined && !isTest(from)) {
    unplaced.add(from);
    continue;
  }
  if (fromLayer === undefined) continue;
  for (const target of relativeImports(file, { runtimeOnly: false })) {
    const to = relative(repositoryRoot, target);
    if (isTestSupport(to) && !isTestSupport(from) && !isTest(from) && fromLayer !== entryRow) {
      violations.push(`${from} imports test support ${to}`);
      continue;
    }
    if (isTest(from) || isTestSupport(from)) continue;
    const toLayer = layerOf(to);
    if (toLayer === undefined) unplaced.add(to);
    else if (toLayer > fromLayer)
      violations.push(`${from} (${rows[fromLayer].layer}) imports ${to} (${rows[toLayer].layer}, below it)`);
  }
}

let failed = false;
if (unplaced.size > 0) {
  failed = true;
  console.error(`layer direction: ${unplaced.size} files belong to no row of the table in ${page}:`);
  for (const path of [...unplaced].sort()) console.error(`  - ${path}`);
}
if (violations.length > 0) {
  failed = true;
  console.error(`layer direction: ${violations.length} imports go up the table in ${page}:`);
  for (const violation of violations.sort()) console.error(`  - ${violation}`);
  console.error('Move what both layers need into the higher one, or change the table if the layering changed.');
}
if (failed) process.exit(1);
console.log(`layer direction: every import of src/ goes down the ${rows.length} layers of ${page}`);
