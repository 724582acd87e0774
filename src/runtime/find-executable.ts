import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** The first executable file called `name` on `searchPath` (or `name` itself when it is absolute). */
export function findExecutable(name: string, searchPath = process.env.PATH ?? ''): string | undefined {
  const candidates = isAbsolute(name)
    ? [name]
    : searchPath
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, name));
  return candidates.find(isExecutableFile);
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Standard places for system programs, searched when the host PATH does not have them. */
export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
