import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** skillbox's own package: its folder (where `native/` and `package.json` are) and its version. */
export interface OwnPackage {
  folder: string;
  version: string;
}

let found: OwnPackage | undefined;

/**
 * Found by walking up from this module to the first package.json that names skillbox, not by a
 * fixed `../../`: the build bundles modules into files at different depths of dist/ (an entry at
 * dist/index.js, shared chunks in dist/chunks/), and in src/ (tests) the depth differs again.
 * Read once per process, synchronously: `--version` and the sandbox's prelude lookup call it.
 */
export function ownPackage(): OwnPackage {
  if (found !== undefined) return found;
  const start = dirname(fileURLToPath(import.meta.url));
  for (let folder = start; ; folder = dirname(folder)) {
    const manifest = readManifest(join(folder, 'package.json'));
    if (manifest?.name === 'skillbox' && typeof manifest.version === 'string') {
      found = { folder, version: manifest.version };
      return found;
    }
    if (dirname(folder) === folder) throw new Error(`skillbox: no package.json naming skillbox above ${start}`);
  }
}

function readManifest(file: string): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
  } catch {
    // No package.json here (src/, dist/), or one that is not ours to read: keep walking up.
    return undefined;
  }
}
