import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OptionProblems } from '../config/option-problems.js';
import type { ArchiveEntry } from './archive/archive-entry.js';
import { type ArchiveLimits, archiveLimits } from './archive/archive-limits.js';
import { detectArchiveFormat } from './archive/detect-archive-format.js';
import { UnsafeArchiveError } from './archive/errors.js';
import { readArchive } from './archive/read-archive.js';
import { writeArchiveEntries } from './archive/write-archive-entries.js';
import { withExclusiveLock } from './exclusive-lock.js';
import { defaultSkillsCacheDir } from './url-root-cache-dir.js';
import { type CachedValidators, type Download, DownloadFailure, downloadWithLimits } from './url-root-download.js';
import { displayUrl, UrlRootError } from './url-root-errors.js';
import { addUrlRootOptionsProblems } from './url-root-options-check.js';

/** Options of `resolveUrlRoot`: the cache folder, download size, timeout and redirects, and archive limits. */
export interface UrlRootOptions {
  /** Folder holding one entry per URL; defaults to `defaultSkillsCacheDir()` (`SKILLS_CACHE_DIR`, ...). */
  cacheDir?: string;
  /** Bytes a download may have (default 64 MiB), by `Content-Length` and as streamed. */
  maxDownloadBytes?: number;
  /** Milliseconds for the whole download, redirects and body included (default 60,000). */
  timeoutMs?: number;
  /** Redirects followed before giving up (default 5). */
  maxRedirects?: number;
  /** Entry count, per-file and total extracted bytes, compression ratio; see `defaultArchiveLimits`. */
  archiveLimits?: Partial<ArchiveLimits>;
  /**
   * Also fetch from loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local (cloud
   * metadata at 169.254.169.254), carrier-grade NAT, multicast and other non-public addresses,
   * the URL's own host and every redirect's. Off by default: a skills URL, or a redirect from it,
   * would otherwise make skillbox fetch from the machine or network it runs in. The address is
   * checked as the connection is made, so a DNS answer that changes after a check cannot pass.
   */
  allowPrivateAddresses?: boolean;
}

/** The name of the file whose presence marks a cache entry as complete. */
export const urlRootSentinelName = '.complete';

const mebibyte = 1024 * 1024;
/** Downloads in flight in this process, by cache entry: concurrent opens of one URL share one. */
const inFlight = new Map<string, Promise<string>>();

interface CheckedOptions {
  cacheDir: string;
  download: { maxBytes: number; timeoutMs: number; maxRedirects: number; allowPrivateAddresses: boolean };
  archive: ArchiveLimits;
}

/** Throws SkillboxConfigError for an option that cannot work, so a factory can fail at construction. */
export function checkUrlRootOptions(options: UrlRootOptions): void {
  checkOptions(options);
}

function checkOptions(options: UrlRootOptions): CheckedOptions {
  const problems = new OptionProblems('resolveUrlRoot');
  addUrlRootOptionsProblems(problems, '', options);
  problems.throwIfAny();
  return {
    cacheDir: options.cacheDir ?? defaultSkillsCacheDir(),
    download: {
      maxBytes: options.maxDownloadBytes ?? 64 * mebibyte,
      timeoutMs: options.timeoutMs ?? 60_000,
      maxRedirects: options.maxRedirects ?? 5,
      allowPrivateAddresses: options.allowPrivateAddresses ?? false,
    },
    archive: archiveLimits(options.archiveLimits),
  };
}

/**
 * What decides whether a download is accepted, as text: the address rule, size and redirect caps,
 * and archive limits (the timeout is left out: it decides nothing about what is stored).
 */
function policyText(options: Pick<CheckedOptions, 'download' | 'archive'>): string {
  const { allowPrivateAddresses, maxBytes, maxRedirects } = options.download;
  const archive = Object.fromEntries(
    Object.entries(options.archive).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)),
  );
  return JSON.stringify({ allowPrivateAddresses, maxBytes, maxRedirects, archive });
}

let defaultPolicyText: string | undefined;

/**
 * Where the cache keeps one URL: `<cacheDir>/<sha256 of the URL>`, the skills in its `root/`, for a
 * root with the default policy; for any other policy (private addresses allowed, other download or
 * archive limits) `<sha256 of the URL and the policy>`. An entry is what one policy accepted, so a
 * root that allows private addresses or larger archives never fills the entry a stricter root reads.
 */
export function urlRootCacheEntry(url: string, cacheDir: string, options: UrlRootOptions = {}): string {
  const policy = policyText(checkOptions({ ...options, cacheDir }));
  defaultPolicyText ??= policyText(checkOptions({ cacheDir }));
  const key = policy === defaultPolicyText ? url : `${url}\n${policy}`;
  return join(cacheDir, createHash('sha256').update(key).digest('hex'));
}

async function isComplete(entry: string): Promise<boolean> {
  return stat(join(entry, urlRootSentinelName)).then(
    (stats) => stats.isFile(),
    () => false,
  );
}

/**
 * The folder a lone `SKILL.md` goes in: named after the folder the URL names it in
 * (`…/pdf-tools/SKILL.md` gives `pdf-tools`), so a skill without a `name` field is still named sensibly.
 */
function skillFileFolder(finalUrl: URL, original: URL): string {
  for (const url of [original, finalUrl]) {
    const segments = url.pathname.split('/').filter((segment) => segment !== '');
    const parent = segments.length >= 2 ? decodeURIComponent(segments[segments.length - 2] as string) : '';
    if (/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(parent) && parent.length <= 64) return parent;
  }
  return 'skill';
}

async function entriesOf(download: Download, original: URL, limits: ArchiveLimits): Promise<ArchiveEntry[]> {
  // The URL the caller wrote names the format more reliably than a redirect target such as `/zip/refs/heads/main`.
  const named = detectArchiveFormat(original.pathname, new Uint8Array(0));
  const kind =
    named !== undefined && named !== 'skill-file'
      ? named
      : (detectArchiveFormat(download.finalUrl.pathname, download.bytes) ?? named);
  if (kind === undefined) {
    throw new UnsafeArchiveError(
      `${original.pathname} is not a .zip, .tar.gz, .tgz, .tar or SKILL.md, and its bytes are none of those formats either`,
    );
  }
  if (kind !== 'skill-file') return readArchive(download.bytes, kind, limits);
  if (download.bytes.length > limits.maxEntryBytes) {
    throw new UnsafeArchiveError(
      `the SKILL.md is ${download.bytes.length} bytes, over the ${limits.maxEntryBytes}-byte limit (maxEntryBytes)`,
    );
  }
  return [
    {
      path: `${skillFileFolder(download.finalUrl, original)}/SKILL.md`,
      type: 'file',
      mode: 0o644,
      data: download.bytes,
    },
  ];
}

/** The validators a complete entry was stored with (none for entries written before they were kept). */
async function validatorsOf(entry: string): Promise<CachedValidators> {
  try {
    const record = JSON.parse(await readFile(join(entry, urlRootSentinelName), 'utf8')) as Record<string, unknown>;
    return {
      ...(typeof record.etag === 'string' ? { etag: record.etag } : {}),
      ...(typeof record.lastModified === 'string' ? { lastModified: record.lastModified } : {}),
    };
  } catch {
    return {};
  }
}

/**
 * Asks the server whether the cached copy is current (If-None-Match / If-Modified-Since): 304 keeps
 * it, a new body replaces it. When the server cannot be reached or fails, the cached copy is used:
 * it was checked whole when it was stored, and an agent should not lose its skills to an outage.
 * An entry stored without validators is used as it is, as a re-download on every open would be.
 */
async function revalidate(url: string, entry: string, options: CheckedOptions): Promise<string> {
  const root = join(entry, 'root');
  const validators = await validatorsOf(entry);
  if (validators.etag === undefined && validators.lastModified === undefined) return root;
  let answer: Download | 'not-modified';
  try {
    answer = await downloadWithLimits(url, options.download, validators);
  } catch (error) {
    if (error instanceof DownloadFailure) return root;
    throw error;
  }
  if (answer === 'not-modified') return root;
  return install(url, entry, options, answer);
}

async function install(url: string, entry: string, options: CheckedOptions, downloaded?: Download): Promise<string> {
  const shown = displayUrl(url);
  const root = join(entry, 'root');
  let entries: ArchiveEntry[];
  let download: Download;
  try {
    download = downloaded ?? (await downloadWithLimits(url, options.download));
    entries = await entriesOf(download, new URL(url), options.archive);
  } catch (error) {
    if (error instanceof DownloadFailure || error instanceof UnsafeArchiveError)
      throw new UrlRootError(shown, error.message, { cause: error });
    throw error;
  }
  // Only an archive that passed every check reaches the disk; it is built beside the entry and renamed
  // into place with its sentinel already inside, so no reader ever sees half of it.
  let temporary: string | undefined;
  try {
    // The cache folder exists: resolveUrlRoot made it before taking the lock that lives in it.
    temporary = await mkdtemp(join(options.cacheDir, '.tmp-'));
    await writeArchiveEntries(join(temporary, 'root'), entries);
    const record = {
      url: shown,
      files: entries.filter((item) => item.type === 'file').length,
      completedAt: new Date().toISOString(),
      ...(download.etag === undefined ? {} : { etag: download.etag }),
      ...(download.lastModified === undefined ? {} : { lastModified: download.lastModified }),
    };
    await writeFile(join(temporary, urlRootSentinelName), `${JSON.stringify(record)}\n`, { mode: 0o644 });
    try {
      await rename(temporary, entry);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      // An older copy (being revalidated) or a folder without a sentinel (not made by a finished
      // install, which arrives whole) is moved aside first, so the new copy appears in one rename.
      const aside = `${temporary}-old`;
      await rename(entry, aside);
      await rename(temporary, entry);
      await rm(aside, { recursive: true, force: true });
    }
    temporary = undefined;
    return root;
  } catch (error) {
    throw new UrlRootError(
      shown,
      `cannot write the cache entry ${entry}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      {
        cause: error,
      },
    );
  } finally {
    if (temporary !== undefined) await rm(temporary, { recursive: true, force: true });
  }
}

/**
 * Makes an `http://` or `https://` skills root into a local folder and returns its path. The first
 * call downloads the file (an archive or a lone `SKILL.md`), checks it whole, and extracts it into
 * the cache; later calls, in this process or another, send the stored `ETag` / `Last-Modified` back
 * and download again only when the server answers with a new body (not 304). Offline, or when the
 * server fails, a complete cached entry is used. Processes share one lock per entry, so many opening
 * one URL at once download it once. Throws UrlRootError (naming the URL, and the entry for a refused archive).
 */
export async function resolveUrlRoot(url: string, options: UrlRootOptions = {}): Promise<string> {
  const checked = checkOptions(options);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UrlRootError(displayUrl(url), 'not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UrlRootError(displayUrl(url), `${parsed.protocol} URLs are not downloaded; use http, https or file`);
  }
  const entry = urlRootCacheEntry(url, checked.cacheDir, options);
  const pending = inFlight.get(entry);
  if (pending) return pending;
  // Made before the lock's folder is: the user's alone, whatever the umask, since the caches
  // beside it (host probes, compiled code) are used only in a folder no one else may write.
  const started = mkdir(checked.cacheDir, { recursive: true, mode: 0o700 })
    .then(() =>
      withExclusiveLock(
        `${entry}.lock`,
        async () => ((await isComplete(entry)) ? revalidate(url, entry, checked) : install(url, entry, checked)),
        { timeoutMs: checked.download.timeoutMs * 2 },
      ),
    )
    .finally(() => inFlight.delete(entry));
  inFlight.set(entry, started);
  return started;
}
