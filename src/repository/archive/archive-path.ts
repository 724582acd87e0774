import { firstUnsafeCharacter } from '../../format/escape-unsafe-characters.js';
import { UnsafeArchiveError } from './errors.js';

/**
 * Checks an entry name from an archive and returns it in canonical form, or undefined for the
 * archive's own top folder (`./`). Anything that could land outside the extraction folder, or mean
 * something else on another system, is refused rather than repaired: a name such as `a/../b` or
 * `a\b` has no innocent reason to be in a skills archive, and repairing it is how extractors that
 * normalise before checking were fooled.
 */
export function cleanArchivePath(raw: string): string | undefined {
  if (raw.includes('\0')) throw new UnsafeArchiveError('the path holds a NUL character', raw);
  // A line break, escape sequence or bidirectional override in a name can forge lines of the file
  // listings a model reads, or show one name while being another; no skill needs one.
  const unsafe = firstUnsafeCharacter(raw);
  if (unsafe !== undefined)
    throw new UnsafeArchiveError(`the path holds the control or invisible character ${unsafe}`, raw);
  if (raw.includes('\\'))
    throw new UnsafeArchiveError('the path holds a backslash, which is a separator on Windows', raw);
  if (raw.startsWith('/')) throw new UnsafeArchiveError('absolute paths are not allowed', raw);
  if (/^[A-Za-z]:/.test(raw)) throw new UnsafeArchiveError('the path starts with a drive letter', raw);
  // A colon elsewhere names an alternate data stream on Windows (`notes.md:hidden`).
  if (raw.includes(':')) throw new UnsafeArchiveError('the path holds a colon', raw);
  const segments = raw.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) throw new UnsafeArchiveError('".." is not allowed in an archive path', raw);
  return segments.length === 0 ? undefined : segments.join('/');
}

/**
 * Collects the cleaned paths of one archive and refuses a second entry of the same path, and a file
 * that another entry treats as a folder (or the other way round): either would let a later entry
 * replace or redirect an earlier one.
 */
export class ArchivePathSet {
  readonly #kinds = new Map<string, 'file' | 'directory'>();

  add(path: string, type: 'file' | 'directory', raw: string): void {
    const existing = this.#kinds.get(path);
    if (existing !== undefined) {
      if (existing === 'directory' && type === 'directory') return;
      throw new UnsafeArchiveError(`another entry already has the path ${JSON.stringify(path)}`, raw);
    }
    const segments = path.split('/');
    for (let length = 1; length < segments.length; length += 1) {
      const parent = segments.slice(0, length).join('/');
      const kind = this.#kinds.get(parent);
      if (kind === 'file')
        throw new UnsafeArchiveError(`${JSON.stringify(parent)} is a file in this archive, not a folder`, raw);
      if (kind === undefined) this.#kinds.set(parent, 'directory');
    }
    this.#kinds.set(path, type);
  }
}
