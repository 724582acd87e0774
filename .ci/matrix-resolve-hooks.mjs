// Node module resolution hooks for a .ci/matrix.sh cell, for the processes tests spawn (a CLI run,
// a writer killed mid-append): vitest's aliases (.ci/matrix-aliases.ts) only reach the test files.
// A bare import of a package found in one of SKILLBOX_MATRIX_MODULES's folders is resolved from there.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const owners = new Map();

export function initialize(modulesDirectories) {
  for (const directory of (modulesDirectories ?? '').split(':').filter((entry) => entry !== '')) {
    // Resolving from a file next to the folder finds the package in it, and its dependencies beside it.
    const parentURL = pathToFileURL(join(dirname(directory), 'matrix-cell.js')).href;
    for (const entry of readdirSync(directory)) {
      if (entry.startsWith('.')) continue;
      const names = entry.startsWith('@') ? readdirSync(join(directory, entry)).map((name) => `${entry}/${name}`) : [entry];
      for (const name of names) owners.set(name, parentURL);
    }
  }
}

export async function resolve(specifier, context, nextResolve) {
  const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
  const parentURL = owners.get(name);
  if (parentURL === undefined || specifier.startsWith('.') || specifier.includes(':')) return nextResolve(specifier, context);
  return nextResolve(specifier, { ...context, parentURL });
}
