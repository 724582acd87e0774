export type ArchiveFormat = 'zip' | 'tar' | 'tar.gz';

/** One entry of an archive that passed every check, with its bytes already read and verified. */
export interface ArchiveEntry {
  /** Clean `/`-separated relative path: no `..`, no `.`, no empty segment, no leading or trailing slash. */
  path: string;
  type: 'file' | 'directory';
  /** Permission bits (at most 0o777) the archive gave, or 0o644 / 0o755 when it gave none. */
  mode: number;
  /** The file's bytes; empty for a folder. */
  data: Buffer;
}
