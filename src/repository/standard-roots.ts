import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** What `standardSkillRoots` resolves against: the working folder, the home folder and the environment. */
export interface StandardRootsOptions {
  /** Folder the `./…` roots are relative to; defaults to `process.cwd()`. */
  cwd?: string;
  /** Environment holding `SKILLS_ROOT`; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Home folder for the `~/…` roots; defaults to `os.homedir()`. */
  home?: string;
}

/**
 * The folders from `cwd` up to its project root, nearest first. The project root is the nearest
 * folder holding `.git` (a folder, or a file in a worktree or submodule), looked for up to `home`
 * or the filesystem root, whichever comes first; the skills of a project are then found from any
 * of its subfolders, as Codex and Claude Code find them. Outside a project only `cwd` itself is
 * used: walking up from /tmp/x would pick up whatever /tmp/skills holds.
 */
export function projectFolders(cwd: string, home: string): string[] {
  const folders: string[] = [];
  let folder = resolve(cwd);
  for (;;) {
    folders.push(folder);
    if (existsSync(join(folder, '.git'))) return folders;
    const parent = dirname(folder);
    if (parent === folder || parent === home || folder === home) return [resolve(cwd)];
    folder = parent;
  }
}

/**
 * Root strings in the standard order: every `SKILLS_ROOT` entry (URLs kept as given, relative
 * paths resolved against `cwd`), then `.agents/skills`, `.claude/skills` and `skills` of `cwd` and
 * of each folder above it up to the project root (see projectFolders), then `~/.agents/skills`,
 * `~/.claude/skills`. Missing folders are left in: a repository treats a missing standard root as
 * empty.
 */
export function standardSkillRoots(options: StandardRootsOptions = {}): string[] {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const home = resolve(options.home ?? homedir());
  const fromEnvironment = splitSkillsRootList(env.SKILLS_ROOT ?? '').map((entry) =>
    isUrl(entry) || isAbsolute(entry) ? entry : resolve(cwd, entry),
  );
  return [
    ...fromEnvironment,
    ...projectFolders(cwd, home).flatMap((folder) => [
      join(folder, '.agents', 'skills'),
      join(folder, '.claude', 'skills'),
      join(folder, 'skills'),
    ]),
    join(home, '.agents', 'skills'),
    join(home, '.claude', 'skills'),
  ];
}

/** Whether a root string is a URL (`scheme://…`) rather than a path. */
export function isUrl(root: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(root);
}

/**
 * Splits a `:`-separated `SKILLS_ROOT` value. A URL's own colons (`https://host:8080/x`) would be
 * cut by a plain split, so a scheme is glued back to the `//…` that follows it, and a port to
 * its host. Blank entries are dropped.
 */
export function splitSkillsRootList(value: string): string[] {
  const pieces = value.split(':');
  const entries: string[] = [];
  for (let index = 0; index < pieces.length; index += 1) {
    let entry = pieces[index] ?? '';
    const next = pieces[index + 1];
    if (/^[A-Za-z][A-Za-z0-9+.-]*$/.test(entry) && next?.startsWith('//')) {
      entry = `${entry}:${next}`;
      index += 1;
      const port = pieces[index + 1];
      // Only the host part of the URL may be followed by a port.
      if (port !== undefined && /^\d+(\/|$)/.test(port) && !entry.slice(entry.indexOf('//') + 2).includes('/')) {
        entry = `${entry}:${port}`;
        index += 1;
      }
    }
    if (entry.trim() !== '') entries.push(entry.trim());
  }
  return entries;
}
