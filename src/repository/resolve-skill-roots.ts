import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isUrl } from './standard-roots.js';
import type { UrlRootOptions } from './url-root.js';
import { displayUrl } from './url-root-errors.js';

export interface RootEntry {
  root: string;
  /** Named by the caller (or in SKILLS_ROOT) rather than a standard folder that may well be absent. */
  explicit: boolean;
}

export interface ResolvedRoots {
  /** Real paths of the folders to scan, in the given order, each once. */
  roots: string[];
  /** What each of `roots` was given as: the URL for a downloaded root, else the same path. */
  sources: string[];
  /** Whether each of `roots` was named by the caller (see RootEntry). */
  explicit: boolean[];
  warnings: string[];
  /** Problems that fail a strict repository: explicit roots that are missing or cannot be used. */
  problems: string[];
}

/**
 * Turns root strings into real folder paths. `file://` URLs become paths; `http(s)://` URLs are
 * downloaded into the cache (or found there) and become the cached folder; other schemes are
 * reported. A missing root is only worth a warning when the caller named it: the standard roots are
 * usually absent.
 */
export async function resolveSkillRoots(
  given: readonly RootEntry[],
  cwd: string,
  urlRoots: UrlRootOptions = {},
): Promise<ResolvedRoots> {
  const result: ResolvedRoots = { roots: [], sources: [], explicit: [], warnings: [], problems: [] };
  for (const { root, explicit } of given) {
    const report = (message: string): void => {
      result.warnings.push(message);
      if (explicit) result.problems.push(message);
    };
    let path: string;
    const lower = root.toLowerCase();
    if (lower.startsWith('http://') || lower.startsWith('https://')) {
      try {
        // Loaded for the first URL root: downloads and archive readers are no cost to local folders.
        const { resolveUrlRoot } = await import('./url-root.js');
        path = await resolveUrlRoot(root, urlRoots);
      } catch (error) {
        report((error as Error).message);
        continue;
      }
    } else if (isUrl(root)) {
      if (!lower.startsWith('file://')) {
        report(
          `skills root ${root} is a URL of a scheme that is not supported (http, https and file are), so it was skipped`,
        );
        continue;
      }
      try {
        path = fileURLToPath(root);
      } catch (error) {
        report(`skills root ${root} is not a usable file URL: ${(error as Error).message}`);
        continue;
      }
    } else {
      path = resolve(cwd, root);
    }
    let real: string;
    try {
      real = await realpath(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        if (explicit) report(`skills root ${path} does not exist`);
      } else {
        report(`skills root ${path} cannot be resolved: ${code ?? (error as Error).message}`);
      }
      continue;
    }
    if (!(await stat(real)).isDirectory()) {
      report(`skills root ${path} is not a folder`);
      continue;
    }
    const already = result.roots.indexOf(real);
    if (already !== -1) {
      if (explicit) result.explicit[already] = true;
    } else {
      result.roots.push(real);
      result.explicit.push(explicit);
      result.sources.push(isUrl(root) && !lower.startsWith('file://') ? displayUrl(root) : real);
    }
  }
  return result;
}
