import type { OptionProblems } from '../config/option-problems.js';
import { describeValue } from '../config/validate-options.js';

// The checks of `UrlRootOptions` and of archive limit overrides, for `resolveUrlRoot`, a
// repository's `urlRoots` and `readArchive`. Written out rather than zod schemas: the root entry
// reaches these files and a repository checks its options when created, where zod should not load
// (OptionProblems). The words are the shared option schemas' (config/option-schemas.ts).

const archiveLimitNames = [
  'maxEntries',
  'maxEntryBytes',
  'maxTotalBytes',
  'maxCompressionRatio',
  'compressionRatioFloorBytes',
] as const;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `prefix.name`, or `name` alone at the top level (prefix ''). */
const named = (prefix: string, name: string): string => (prefix === '' ? name : `${prefix}.${name}`);

function addCountProblem(problems: OptionProblems, option: string, value: unknown, least: 0 | 1): void {
  if (value === undefined || (Number.isSafeInteger(value) && (value as number) >= least)) return;
  const kind = least === 1 ? 'a positive integer' : 'a non-negative integer';
  problems.add(option, `must be ${kind}; got ${describeValue(value)}`);
}

/**
 * Adds what is wrong with archive limit overrides: an object whose limits, each optional, are
 * positive integers. `prefix` names the option holding them ('' when they are the options).
 */
export function addArchiveLimitsProblems(problems: OptionProblems, prefix: string, value: unknown): void {
  if (!isRecord(value)) {
    problems.add(
      prefix === '' ? 'options' : prefix,
      `must be an object of archive limits; got ${describeValue(value)}`,
    );
    return;
  }
  for (const name of archiveLimitNames) addCountProblem(problems, named(prefix, name), value[name], 1);
}

/**
 * Adds what is wrong with `UrlRootOptions`: the cache folder, download size, timeout, redirects,
 * the private-address switch and the archive limits. `prefix` names the option holding them ('' when
 * they are the options).
 */
export function addUrlRootOptionsProblems(problems: OptionProblems, prefix: string, value: unknown): void {
  if (!isRecord(value)) {
    problems.add(prefix === '' ? 'options' : prefix, `must be an object; got ${describeValue(value)}`);
    return;
  }
  const { cacheDir, allowPrivateAddresses, archiveLimits } = value;
  if (cacheDir !== undefined && !(typeof cacheDir === 'string' && cacheDir.trim() !== ''))
    problems.add(named(prefix, 'cacheDir'), `must be a non-empty folder path; got ${describeValue(cacheDir)}`);
  addCountProblem(problems, named(prefix, 'maxDownloadBytes'), value.maxDownloadBytes, 1);
  addCountProblem(problems, named(prefix, 'timeoutMs'), value.timeoutMs, 1);
  addCountProblem(problems, named(prefix, 'maxRedirects'), value.maxRedirects, 0);
  if (allowPrivateAddresses !== undefined && typeof allowPrivateAddresses !== 'boolean')
    problems.add(
      named(prefix, 'allowPrivateAddresses'),
      `must be true or false; got ${describeValue(allowPrivateAddresses)}`,
    );
  if (archiveLimits !== undefined) addArchiveLimitsProblems(problems, named(prefix, 'archiveLimits'), archiveLimits);
}
