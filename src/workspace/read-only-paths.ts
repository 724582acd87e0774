import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { OptionProblems } from '../config/option-problems.js';
import { isInside } from './workspace-paths.js';

/**
 * Checks host folders or files to show read-only to every command (the runtime binds them at the
 * same path): absolute, existing, not `/` (that would show the whole host), and neither inside the
 * workspace base nor above it, which would show other sessions' workspaces. Returns canonical paths;
 * every refused entry is reported at once, under `component`.
 */
export function validateReadOnlyPaths(
  option: string,
  paths: unknown,
  baseDir: string,
  component = 'createWorkspaceManager',
): string[] {
  if (paths === undefined) return [];
  const problems = new OptionProblems(component);
  if (!Array.isArray(paths)) {
    problems.add(option, 'must be a list of absolute host paths');
    problems.throwIfAny();
  }
  const base = canonical(baseDir);
  const checked = (paths as unknown[]).map((item, index) => {
    const field = `${option}[${index}]`;
    if (typeof item !== 'string' || !path.isAbsolute(item)) {
      problems.add(field, `must be an absolute host path; got ${JSON.stringify(item)}`);
      return '';
    }
    let real: string;
    try {
      real = realpathSync(item);
      statSync(real);
    } catch {
      problems.add(field, `"${item}" does not exist`);
      return '';
    }
    if (real === path.parse(real).root)
      problems.add(field, `"${item}" is the root folder; name the folders the commands need`);
    else if (isInside(base, real)) problems.add(field, `"${item}" is inside the workspace folder "${baseDir}"`);
    else if (isInside(real, base))
      problems.add(
        field,
        `"${item}" holds the workspace folder "${baseDir}", so every session's workspace would be visible`,
      );
    return real;
  });
  problems.throwIfAny();
  return checked;
}

/** The canonical form of a folder that may not exist yet: its nearest existing ancestor resolved. */
function canonical(folder: string): string {
  const absolute = path.resolve(folder);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = path.dirname(absolute);
    return parent === absolute ? absolute : path.join(canonical(parent), path.basename(absolute));
  }
}
