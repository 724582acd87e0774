import { OptionProblems } from '../../config/option-problems.js';
import { addArchiveLimitsProblems } from '../url-root-options-check.js';
import { UnsafeArchiveError } from './errors.js';

export interface ArchiveLimits {
  /** Entries (files and folders) an archive may hold. */
  maxEntries: number;
  /** Bytes one file may hold once extracted. */
  maxEntryBytes: number;
  /** Bytes all files together may hold once extracted. */
  maxTotalBytes: number;
  /**
   * Extracted size over compressed size that one zip entry may reach once it is larger than
   * `compressionRatioFloorBytes`. Deflate cannot go past about 1,030:1, so a bomb needs a high ratio,
   * while ordinary text rarely passes 20:1.
   */
  maxCompressionRatio: number;
  /** Entries at most this large are not held to the ratio: a small file of repeated bytes is harmless. */
  compressionRatioFloorBytes: number;
}

const mebibyte = 1024 * 1024;

export const defaultArchiveLimits: Readonly<ArchiveLimits> = Object.freeze({
  maxEntries: 20_000,
  maxEntryBytes: 64 * mebibyte,
  maxTotalBytes: 256 * mebibyte,
  maxCompressionRatio: 200,
  compressionRatioFloorBytes: mebibyte,
});

/** The defaults with the given overrides, each checked to be a positive integer. */
export function archiveLimits(overrides: Partial<ArchiveLimits> = {}): ArchiveLimits {
  const problems = new OptionProblems('readArchive');
  addArchiveLimitsProblems(problems, '', overrides);
  problems.throwIfAny();
  const limits = { ...defaultArchiveLimits };
  for (const key of Object.keys(defaultArchiveLimits) as (keyof ArchiveLimits)[]) {
    limits[key] = overrides[key] ?? defaultArchiveLimits[key];
  }
  return limits;
}

/** Counts entries and bytes as a reader goes, refusing the entry that breaks a limit. */
export class ArchiveBudget {
  readonly #limits: ArchiveLimits;
  #entries = 0;
  #totalBytes = 0;

  constructor(limits: ArchiveLimits) {
    this.#limits = limits;
  }

  /** Called once per entry, before its bytes are read or inflated, with the size it claims. */
  admit(entry: string, declaredBytes: number): void {
    this.#entries += 1;
    if (this.#entries > this.#limits.maxEntries) {
      throw new UnsafeArchiveError(
        `the archive holds more than ${this.#limits.maxEntries} entries (maxEntries)`,
        entry,
      );
    }
    if (declaredBytes > this.#limits.maxEntryBytes) {
      throw new UnsafeArchiveError(
        `${declaredBytes} bytes is over the ${this.#limits.maxEntryBytes}-byte limit for one file (maxEntryBytes)`,
        entry,
      );
    }
    this.#totalBytes += declaredBytes;
    if (this.#totalBytes > this.#limits.maxTotalBytes) {
      throw new UnsafeArchiveError(
        `the files extract to more than the ${this.#limits.maxTotalBytes}-byte limit for the whole archive (maxTotalBytes)`,
        entry,
      );
    }
  }

  get limits(): ArchiveLimits {
    return this.#limits;
  }
}
