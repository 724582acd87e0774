import type { ArchiveLimits } from '../../repository/archive/archive-limits.js';

/** How much network and content a source accepts for one call. */
export interface SourceFetchLimits {
  /** One timeout for each request, from sending it to the last byte of the body. */
  timeoutMs: number;
  /** Bytes one download (an archive, an index, a file) may hold before it is decompressed. */
  maxDownloadBytes: number;
  /** Redirects followed per request; each must stay on an origin the source allows. */
  maxRedirects: number;
  /** Entry count and sizes once unpacked (archives, git trees, index files alike). */
  archive: Partial<ArchiveLimits>;
}

const mebibyte = 1024 * 1024;

/** The network limits a source uses when a caller sets none: 60 s per request, 128 MiB per download, 5 redirects. */
export const defaultSourceFetchLimits: Readonly<SourceFetchLimits> = Object.freeze({
  timeoutMs: 60_000,
  maxDownloadBytes: 128 * mebibyte,
  maxRedirects: 5,
  archive: {},
});

/** The defaults with the given overrides. */
export function sourceFetchLimits(overrides: Partial<SourceFetchLimits> = {}): SourceFetchLimits {
  return {
    ...defaultSourceFetchLimits,
    ...overrides,
    archive: { ...defaultSourceFetchLimits.archive, ...overrides.archive },
  };
}
