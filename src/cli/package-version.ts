import { ownPackage } from '../config/own-package.js';

/**
 * The version in skillbox's own package.json, in src/ (tests) and in dist/ (the installed
 * package). Read synchronously: `--version` is the only caller and must start fast
 * (bin/skillbox.js calls it before loading any command).
 */
export function readPackageVersion(): string {
  return ownPackage().version;
}
