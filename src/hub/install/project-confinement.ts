import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { SkillInstallError } from './install-errors.js';

/** Whether `path` is `folder` or below it, as written (no link followed). */
export function isInside(folder: string, path: string): boolean {
  const inside = relative(folder, path);
  return inside === '' || (!inside.startsWith(`..${sep}`) && inside !== '..' && !isAbsolute(inside));
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** The real path of `path`, following links in the part that exists; the missing rest is appended as written. */
export async function realPathAllowingMissing(path: string): Promise<string> {
  let existing = path;
  const missing: string[] = [];
  while (!(await exists(existing))) {
    const parent = dirname(existing);
    if (parent === existing) break;
    missing.unshift(basename(existing));
    existing = parent;
  }
  return join(await realpath(existing), ...missing);
}

/**
 * Where a write below `path` lands when `path` is inside `project` as written, if that is outside
 * the project's real path; undefined when it stays inside, or when `path` was given outside the
 * project to begin with (the caller's choice, not checked). A folder a repository committed as a
 * link (`.agents`, `skillbox-output` leading to a folder elsewhere) would otherwise make skillbox
 * write, delete or read there.
 */
export async function linkOutOfProject(project: string, path: string): Promise<string | undefined> {
  if (!isInside(project, path)) return undefined;
  const realProject = await realPathAllowingMissing(project);
  const real = await realPathAllowingMissing(path);
  return isInside(realProject, real) ? undefined : real;
}

/**
 * Throws SkillInstallError when `path` leaves `project` through a link (`linkOutOfProject`),
 * naming the path, the project and where the link leads, ending with `outcome` ("nothing was
 * installed").
 */
export async function refuseLinkOutOfProject(project: string, path: string, outcome: string): Promise<void> {
  const real = await linkOutOfProject(project, path);
  if (real !== undefined)
    throw new SkillInstallError(`${path} leads outside the project ${project} (to ${real}) through a link; ${outcome}`);
}
