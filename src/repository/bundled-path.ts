import { SkillPathError } from './errors.js';

/**
 * Turns a caller-supplied path of a bundled file into the canonical `/`-separated form used as a
 * key, or throws SkillPathError. Backslashes count as separators so that `..\x` cannot slip past
 * the `..` check when the path comes from a model trained on Windows paths.
 */
export function normalizeBundledPath(skill: string, relativePath: string): string {
  if (typeof relativePath !== 'string' || relativePath.trim() === '') {
    throw new SkillPathError(skill, String(relativePath), 'the path is empty');
  }
  if (relativePath.includes('\0')) {
    throw new SkillPathError(skill, relativePath, 'the path holds a NUL character');
  }
  const slashed = relativePath.replaceAll('\\', '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) {
    throw new SkillPathError(
      skill,
      relativePath,
      'absolute paths are not allowed; give a path relative to the skill folder',
    );
  }
  const segments = slashed.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) {
    throw new SkillPathError(skill, relativePath, '".." is not allowed; give a path inside the skill folder');
  }
  if (segments.length === 0) {
    throw new SkillPathError(skill, relativePath, 'the path names the skill folder itself, not a file');
  }
  return segments.join('/');
}
