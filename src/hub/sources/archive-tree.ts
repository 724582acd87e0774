import type { ArchiveFormat } from '../../repository/archive/archive-entry.js';
import { UnsafeArchiveError } from '../../repository/archive/errors.js';
import { readArchive } from '../../repository/archive/read-archive.js';
import type { FetchedFile } from '../skill-source.js';
import type { SourceErrorFactory } from './skill-source-error.js';
import type { SourceFetchLimits } from './source-limits.js';

export interface ArchiveTreeOptions {
  readonly format: ArchiveFormat;
  /** Drop the one folder every entry sits in (GitHub's `owner-repo-sha/`, npm's `package/`). */
  readonly stripTopFolder: boolean;
  readonly limits: SourceFetchLimits;
  readonly fail: SourceErrorFactory;
}

/**
 * The files of a downloaded archive, read in memory by the hostile-archive-safe reader (links,
 * devices, traversal, absolute paths, bombs and oversize entries are refused there), with the
 * executable bit of each file kept.
 */
export async function archiveTree(bytes: Uint8Array, options: ArchiveTreeOptions): Promise<FetchedFile[]> {
  const { fail } = options;
  let entries: Awaited<ReturnType<typeof readArchive>>;
  try {
    entries = await readArchive(bytes, options.format, options.limits.archive);
  } catch (error) {
    if (error instanceof UnsafeArchiveError) throw fail('refused', error.message, error);
    throw error;
  }
  const files: FetchedFile[] = [];
  let top: string | undefined;
  for (const entry of entries) {
    let path = entry.path;
    if (options.stripTopFolder) {
      const slash = path.indexOf('/');
      const first = slash === -1 ? path : path.slice(0, slash);
      top ??= first;
      if (first !== top || (slash === -1 && entry.type === 'file'))
        throw fail('refused', `archive entry "${entry.path}" is not inside the archive's one top folder "${top}"`);
      if (slash === -1) continue;
      path = path.slice(slash + 1);
    }
    if (entry.type !== 'file') continue;
    files.push({ path, bytes: entry.data, executable: (entry.mode & 0o111) !== 0 });
  }
  return files;
}
