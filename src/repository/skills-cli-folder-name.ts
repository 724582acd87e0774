import type { SkillsLock, SkillsLockEntry } from './skills-lock-file.js';

/**
 * The folder the `skills` CLI (1.5.x) installs a skill named `name` into, which is also how it
 * relates the key of a `skills-lock.json` entry (the skill's frontmatter name, "PDF Tools") to the
 * installed folder (`pdf-tools`): lower case, every run of characters other than `a-z 0-9 . _`
 * turned into one `-`, dots and dashes trimmed from both ends, at most 255 characters, and
 * `unnamed-skill` when nothing is left. skillbox installs into the same folder so the two tools
 * agree on where a locked skill lives. The result never holds a separator and never is `.` or `..`.
 */
export function skillsCliFolderName(name: string): string {
  const folder = name
    .toLowerCase()
    .replace(/[^a-z0-9._]+/g, '-')
    .replace(/^[.-]+|[.-]+$/g, '')
    .slice(0, 255);
  return folder === '' ? 'unnamed-skill' : folder;
}

/**
 * The lock entry of the installed folder `folder`: the entry keyed by the folder name itself, else
 * the one entry whose key the `skills` CLI installs into that folder ("PDF Tools" for `pdf-tools`).
 * Two such keys for one folder are ambiguous, so neither is returned.
 */
export function lockEntryOfFolder(
  lock: SkillsLock,
  folder: string,
): { readonly key: string; readonly entry: SkillsLockEntry } | undefined {
  const exact = lock.skills[folder];
  if (exact !== undefined) return { key: folder, entry: exact };
  const keys = Object.keys(lock.skills).filter((key) => skillsCliFolderName(key) === folder);
  if (keys.length !== 1) return undefined;
  const key = keys[0] as string;
  return { key, entry: lock.skills[key] as SkillsLockEntry };
}
