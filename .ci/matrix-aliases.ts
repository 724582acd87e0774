import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface Alias {
  find: RegExp;
  replacement: string;
}

type ExportTarget = string | { [condition: string]: ExportTarget } | null | undefined;

/** The file an ESM `import` of `subpath` of the package in `packageDirectory` loads, read from its package.json exports. */
function importTarget(packageDirectory: string, subpath: string): string | undefined {
  const manifest = JSON.parse(readFileSync(join(packageDirectory, 'package.json'), 'utf8')) as { exports?: Record<string, ExportTarget> | string; module?: string; main?: string };
  let target: ExportTarget = typeof manifest.exports === 'object' ? manifest.exports[subpath] : subpath === '.' ? (manifest.exports ?? manifest.module ?? manifest.main ?? 'index.js') : undefined;
  while (target !== null && typeof target === 'object') target = target.import ?? target.node ?? target.default;
  return typeof target === 'string' ? join(packageDirectory, target) : undefined;
}

/**
 * Aliases that make the tests import every package of `modulesDirectories` (node_modules folders)
 * instead of the project's copy: `ai` 6 for the ai 6 cells, a better-sqlite3 compiled for the
 * cell's Node. Only the tests' own imports are redirected; a redirected package resolves its own
 * dependencies from its folder, as it would in an application.
 */
export function matrixAliases(modulesDirectories: string | undefined): Alias[] {
  if (modulesDirectories === undefined || modulesDirectories === '') return [];
  // Several folders, separated by ':' (ai 6 from one, a native addon built for this Node from another).
  return modulesDirectories.split(':').filter((directory) => directory !== '').flatMap((directory) => aliasesOf(directory));
}

function aliasesOf(modulesDirectory: string): Alias[] {
  if (!existsSync(modulesDirectory)) throw new Error(`SKILLBOX_MATRIX_MODULES: ${modulesDirectory} does not exist`);
  const packages: string[] = [];
  for (const entry of readdirSync(modulesDirectory)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) packages.push(...readdirSync(join(modulesDirectory, entry)).map((name) => `${entry}/${name}`));
    else packages.push(entry);
  }
  const aliases: Alias[] = [];
  for (const name of packages) {
    const directory = join(modulesDirectory, name);
    const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { exports?: Record<string, unknown> | string };
    const subpaths = typeof manifest.exports === 'object' && Object.keys(manifest.exports).some((key) => key.startsWith('.')) ? Object.keys(manifest.exports).filter((key) => !key.includes('*')) : ['.'];
    for (const subpath of subpaths) {
      const file = importTarget(directory, subpath);
      if (file === undefined || !existsSync(file)) continue;
      const specifier = subpath === '.' ? name : `${name}/${subpath.slice(2)}`;
      aliases.push({ find: new RegExp(`^${specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`), replacement: file });
    }
  }
  return aliases;
}
