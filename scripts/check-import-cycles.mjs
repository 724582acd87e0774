// Fails when the modules under src/ import each other in a cycle. A cycle makes the value a module
// sees at load time depend on which file was imported first (a class can be undefined while its
// module is still initialising), and it erases the layering docs/architecture.md describes.
// Type-only imports are erased at compile time and cannot form a load-time cycle, so they are
// ignored; dynamic import() runs after loading and is ignored too.
//
//   node scripts/check-import-cycles.mjs
import { relative } from 'node:path';
import { relativeImports, repositoryRoot as root, sourceFiles } from './source-imports.mjs';

const files = sourceFiles();
const graph = new Map(
  files.map((file) => [file, relativeImports(file, { runtimeOnly: true }).filter((target) => target !== file)]),
);

// Tarjan's strongly connected components: every component with more than one file is a cycle.
let index = 0;
const indices = new Map();
const lowLinks = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
function connect(file) {
  indices.set(file, index);
  lowLinks.set(file, index);
  index += 1;
  stack.push(file);
  onStack.add(file);
  for (const target of graph.get(file) ?? []) {
    if (!graph.has(target)) continue;
    if (!indices.has(target)) {
      connect(target);
      lowLinks.set(file, Math.min(lowLinks.get(file), lowLinks.get(target)));
    } else if (onStack.has(target)) {
      lowLinks.set(file, Math.min(lowLinks.get(file), indices.get(target)));
    }
  }
  if (lowLinks.get(file) === indices.get(file)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) cycles.push(component);
  }
}
for (const file of files) if (!indices.has(file)) connect(file);

if (cycles.length > 0) {
  console.error(`import cycles: ${cycles.length} found among the runtime imports of src/:`);
  for (const cycle of cycles)
    console.error(
      `  - ${cycle
        .map((file) => relative(root, file))
        .sort()
        .join(', ')}`,
    );
  console.error('Break each by moving what both files need into a third file both import (see docs/architecture.md).');
  process.exit(1);
}
console.log(`import cycles: none among ${files.length} files of src/`);
