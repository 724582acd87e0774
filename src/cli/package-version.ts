import { readFileSync } from 'node:fs';

/**
 * The version in skillbox's own package.json, two folders up from this file both in src/ (tests)
 * and in dist/ (the installed package). Read synchronously: `--version` is the only caller and
 * must start fast (bin/skillbox.js calls it before loading any command).
 */
export function readPackageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}
