import { unhashedFolderNames } from '../../repository/skill-digest.js';
import { skillsCliFolderName } from '../../repository/skills-cli-folder-name.js';
import type { SkillSizeLimits } from '../skill-size-limits.js';
import type { FetchedSkill } from '../skill-source.js';
import { SkillInstallError } from './install-errors.js';

/** A folder name usable on any disk: letters, digits, `.`, `_`, `-`, not starting with a dot. */
const safeFolderName = /^[\p{L}\p{N}][\p{L}\p{N}._-]{0,127}$/u;
const controlCharacter = /[\p{Cc}\u2028\u2029]/u;

/**
 * Why `name` cannot be installed, or undefined. The folder is the `skills` CLI's sanitised form
 * of the name (`skillsCliFolderName`: "PDF Tools" goes to `pdf-tools`), so both tools agree on it;
 * but a name that is itself a path (`../x`, `a/b`, `.hidden`) is refused rather than sanitised,
 * because its sanitised form could land on another skill's folder (`../good` would become `good`).
 */
export function skillFolderNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name === '') return 'is empty';
  if (controlCharacter.test(name)) return 'holds a control character';
  if (name.length > 128) return 'is longer than 128 characters';
  if (/[/\\:]/.test(name) || name.startsWith('.') || name.startsWith('-'))
    return 'must not hold "/", "\\" or ":" nor start with "." or "-"';
  if (!safeFolderName.test(skillsCliFolderName(name)))
    return `installs into the folder ${JSON.stringify(skillsCliFolderName(name))}, which is not a usable folder name`;
  return undefined;
}

function pathProblem(path: unknown): string | undefined {
  if (typeof path !== 'string' || path === '') return 'is empty';
  if (path.length > 1024) return 'is longer than 1,024 characters';
  if (controlCharacter.test(path)) return 'holds a control character';
  if (path.includes('\\')) return 'holds a backslash';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'is absolute';
  const segments = path.split('/');
  if (segments.some((segment) => segment === '..')) return 'climbs out of the skill folder (..)';
  if (segments.some((segment) => segment === '' || segment === '.')) return 'has an empty or "." segment';
  if (segments.slice(0, -1).some((segment) => unhashedFolderNames.has(segment)))
    return `goes through ${segments.find((segment) => unhashedFolderNames.has(segment))}, which hashes leave out`;
  return undefined;
}

/**
 * The path as a case-insensitive, normalization-insensitive disk (macOS APFS and HFS+, Windows)
 * sees it: `café.md` written with one code point for `é` (NFC) and with `e` and a combining accent
 * (NFD) are one file there, as are `Run.sh` and `run.sh`. Upper then lower case folds more pairs
 * than lower case alone (`ſ` and `s`); a pair folded here that a disk keeps apart is refused, which
 * costs nothing a real skill needs.
 */
function foldedPath(path: string): string {
  return path.normalize('NFD').toUpperCase().toLowerCase().normalize('NFD');
}

/**
 * Checks a skill as a source delivered it, whatever the source: a usable name, SKILL.md at the top,
 * every path relative and confined (no `..`, absolute, backslash or drive paths), no two paths that
 * collide on a case- or normalization-insensitive disk or where one is a file and the other a
 * folder, and the limits.
 * Throws SkillInstallError naming the skill, file and rule.
 */
export function validateFetchedSkill(skill: FetchedSkill, limits: SkillSizeLimits, reference: string): void {
  const nameProblem = skillFolderNameProblem(skill.name);
  if (nameProblem !== undefined)
    throw new SkillInstallError(`${reference}: skill name ${JSON.stringify(skill.name)} ${nameProblem}`);
  const where = `${reference}: skill ${skill.name}`;
  if (skill.files.length > limits.maxFiles)
    throw new SkillInstallError(`${where} has ${skill.files.length} files, over the ${limits.maxFiles}-file limit`);
  const folded = new Set<string>();
  const folders = new Set<string>();
  let total = 0;
  for (const file of skill.files) {
    const problem = pathProblem(file.path);
    if (problem !== undefined) throw new SkillInstallError(`${where}: file ${JSON.stringify(file.path)} ${problem}`);
    const key = foldedPath(file.path);
    if (folded.has(key))
      throw new SkillInstallError(
        `${where}: file ${file.path} appears twice (paths are compared ignoring case and Unicode normalization, as macOS and Windows disks compare them)`,
      );
    folded.add(key);
    const segments = key.split('/');
    for (let end = 1; end < segments.length; end += 1) folders.add(segments.slice(0, end).join('/'));
    if (!(file.bytes instanceof Uint8Array))
      throw new SkillInstallError(`${where}: file ${file.path} has no byte content`);
    if (file.bytes.length > limits.maxFileBytes)
      throw new SkillInstallError(
        `${where}: file ${file.path} is ${file.bytes.length} bytes, over the ${limits.maxFileBytes}-byte limit per file`,
      );
    total += file.bytes.length;
    if (total > limits.maxSkillBytes)
      throw new SkillInstallError(`${where} holds over ${limits.maxSkillBytes} bytes in all`);
  }
  for (const key of folded)
    if (folders.has(key)) throw new SkillInstallError(`${where}: ${key} is both a file and a folder`);
  if (!skill.files.some((file) => file.path === 'SKILL.md'))
    throw new SkillInstallError(`${where} has no SKILL.md at its top`);
}
