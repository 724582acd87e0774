// Prints the shape of the source the way issue reviews count it: non-test source lines, functions
// longer than 100 lines, files longer than 500 lines, and the public names of each package entry
// (from the API reports in api/). One script, so figures before and after a change compare.
//
//   node scripts/measure-code-shape.mjs            (summary)
//   node scripts/measure-code-shape.mjs --list     (also names each long function and file)
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;
const list = process.argv.includes('--list');

function* sourceFiles(folder) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'fixtures' || entry.name === 'node_modules') continue;
      yield* sourceFiles(path);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) {
      yield path;
    }
  }
}

let lines = 0;
const longFiles = [];
const longFunctions = [];
for (const path of sourceFiles(join(root, 'src'))) {
  const text = readFileSync(path, 'utf8');
  const count = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  lines += count;
  const name = relative(root, path);
  if (count > 500) longFiles.push(`${name} (${count})`);
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(node.end).line;
      const length = end - start + 1;
      if (length > 100) {
        const label = node.name?.getText(file) ?? ts.SyntaxKind[node.kind];
        longFunctions.push(`${name}:${start + 1} ${label} (${length})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

console.log(`source lines (src, without tests): ${lines}`);
console.log(`functions over 100 lines: ${longFunctions.length}`);
if (list) for (const entry of longFunctions) console.log(`  ${entry}`);
console.log(`files over 500 lines: ${longFiles.length}`);
if (list) for (const entry of longFiles) console.log(`  ${entry}`);

// Each API report states its own count in one line: "N names: V runtime values, T types."
console.log('public names per entry (all, runtime values):');
for (const report of readdirSync(join(root, 'api')).sort()) {
  const text = readFileSync(join(root, 'api', report), 'utf8');
  const counts = /^(\d+) names?: (\d+) runtime values?/m.exec(text);
  console.log(
    `  ${report.replace('.api.md', '')}: ${counts ? `${counts[1]} names, ${counts[2]} values` : 'no count line'}`,
  );
}
