import type { Stats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { sep } from 'node:path';

/** Whether `path` is `folder` or lies below it (both absolute, already resolved). */
export function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

export type LinkTarget =
  | { kind: 'inside'; realPath: string; stats: Stats }
  | { kind: 'outside'; realPath: string }
  | { kind: 'dangling'; code: string };

/**
 * Where a symbolic link really leads, judged against the folder it must stay in. A link that loops
 * on itself resolves with ELOOP and comes back as dangling, like one whose target is gone.
 */
export async function resolveLink(linkPath: string, boundary: string): Promise<LinkTarget> {
  let realPath: string;
  try {
    realPath = await realpath(linkPath);
  } catch (error) {
    return { kind: 'dangling', code: (error as NodeJS.ErrnoException).code ?? 'UNKNOWN' };
  }
  if (!isWithin(realPath, boundary)) return { kind: 'outside', realPath };
  try {
    return { kind: 'inside', realPath, stats: await stat(realPath) };
  } catch (error) {
    return { kind: 'dangling', code: (error as NodeJS.ErrnoException).code ?? 'UNKNOWN' };
  }
}
