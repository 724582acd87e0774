import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { WorkspaceConfigError } from './errors.js';
import { isInside } from './workspace-paths.js';

/**
 * Checks host folders or files to show read-only to every command (the runtime binds them at the
 * same path): absolute, existing, not `/` (that would show the whole host), and neither inside the
 * workspace base nor above it, which would show other sessions' workspaces. Returns canonical paths.
 */
export function validateReadOnlyPaths(option: string, paths: unknown, baseDir: string): string[] {
  if (paths === undefined) return [];
  if (!Array.isArray(paths)) throw new WorkspaceConfigError(option, 'expected a list of absolute host paths');
  const base = canonical(baseDir);
  return paths.map((item, index) => {
    const field = `${option}[${index}]`;
    if (typeof item !== 'string' || !path.isAbsolute(item))
      throw new WorkspaceConfigError(field, `must be an absolute host path, got ${JSON.stringify(item)}`);
    let real: string;
    try {
      real = realpathSync(item);
      statSync(real);
    } catch {
      throw new WorkspaceConfigError(field, `"${item}" does not exist`);
    }
    if (real === path.parse(real).root)
      throw new WorkspaceConfigError(field, `"${item}" is the root folder; name the folders the commands need`);
    if (isInside(base, real))
      throw new WorkspaceConfigError(field, `"${item}" is inside the workspace folder "${baseDir}"`);
    if (isInside(real, base))
      throw new WorkspaceConfigError(
        field,
        `"${item}" holds the workspace folder "${baseDir}", so every session's workspace would be visible`,
      );
    return real;
  });
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
