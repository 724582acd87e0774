import { createHash } from 'node:crypto';
import type { ArchiveFormat } from '../../repository/archive/archive-entry.js';
import { ArchiveBudget, archiveLimits } from '../../repository/archive/archive-limits.js';
import { UnsafeArchiveError } from '../../repository/archive/errors.js';
import type { FetchedFile, FetchedSkill, ResolvedSource, SkillSource } from '../skill-source.js';
import { archiveTree } from './archive-tree.js';
import { collectSkills } from './collect-skills.js';
import { type HttpGetResponse, httpGet, parseJsonBody } from './http-get.js';
import { type SourceErrorFactory, sourceErrorFactory } from './skill-source-error.js';
import { type SourceFetchLimits, sourceFetchLimits } from './source-limits.js';
import { parseWellKnownIndex, type WellKnownEntry } from './well-known-index.js';

/** Options of `createWellKnownSource`: fetch limits for the index and its files. */
export interface WellKnownSourceOptions {
  /** Hosts whose URLs are something else (GitHub and friends); their URLs are not matched. */
  readonly excludedHosts?: readonly string[];
  readonly limits?: Partial<SourceFetchLimits>;
}

const v2Path = '/.well-known/agent-skills/index.json';
const v1Path = '/.well-known/skills/index.json';

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Index URLs to try for a reference, v0.2 before v0.1, the reference's path before its origin. */
function candidateIndexUrls(reference: string): string[] {
  const url = new URL(reference);
  url.hash = '';
  url.search = '';
  if (url.pathname.endsWith('/index.json')) return [url.href];
  const base = url.pathname.replace(/\/+$/, '');
  const candidates = [`${url.origin}${base}${v2Path}`, `${url.origin}${base}${v1Path}`];
  if (base !== '') candidates.push(`${url.origin}${v2Path}`, `${url.origin}${v1Path}`);
  return candidates;
}

function archiveFormat(response: HttpGetResponse): ArchiveFormat | undefined {
  const type = response.headers.get('content-type')?.split(';')[0]?.trim();
  if (type === 'application/zip') return 'zip';
  if (type === 'application/gzip' || type === 'application/x-gzip') return 'tar.gz';
  if (/\.zip$/i.test(response.url.pathname)) return 'zip';
  if (/\.(tar\.gz|tgz)$/i.test(response.url.pathname)) return 'tar.gz';
  return undefined;
}

/**
 * Skills a website publishes under the Agent Skills Discovery RFC: v0.2
 * (`/.well-known/agent-skills/index.json`, one artifact per skill with a sha256 digest that must
 * match) and v0.1 (`/.well-known/skills/index.json`, a file list per skill). The pin is the digest
 * of the index itself, so a fetch of a resolved source refuses an index that changed since. Every
 * URL an index names must be on the index's own origin, and redirects may not leave it either.
 */
export function createWellKnownSource(options: WellKnownSourceOptions = {}): SkillSource {
  const limits = sourceFetchLimits(options.limits);
  const excluded = new Set(options.excludedHosts ?? ['github.com', 'www.github.com', 'gitlab.com', 'huggingface.co']);

  async function downloadIndex(url: string, fail: SourceErrorFactory, signal: AbortSignal | undefined) {
    const answer = await httpGet({ url, headers: { accept: 'application/json' }, limits, signal, fail });
    if (answer.status === 404) return undefined;
    if (answer.status !== 200) throw fail('unavailable', `${url} answered HTTP ${answer.status}`);
    return answer;
  }

  return {
    type: 'well-known',
    matches(reference) {
      if (!/^https?:\/\//.test(reference)) return false;
      try {
        const url = new URL(reference);
        return !excluded.has(url.hostname) && !/\.git\/?$/.test(url.pathname);
      } catch {
        return false;
      }
    },
    async resolve(reference, callOptions = {}): Promise<ResolvedSource> {
      const fail = sourceErrorFactory('well-known', reference);
      if (callOptions.ref !== undefined) throw fail('invalid-reference', 'a well-known index has no refs to pick');
      let candidates: string[];
      try {
        candidates = candidateIndexUrls(reference);
      } catch (error) {
        throw fail('invalid-reference', 'not a URL', error);
      }
      for (const url of candidates) {
        const answer = await downloadIndex(url, fail, callOptions.signal);
        if (answer === undefined) continue;
        parseWellKnownIndex(parseJsonBody(answer, fail), fail);
        return {
          sourceType: 'well-known',
          source: reference,
          sourceUrl: url,
          pinned: `sha256:${sha256(answer.bytes)}`,
        };
      }
      throw fail('not-found', `no skills index at ${candidates.join(' or ')}`);
    },
    async fetch(resolved, callOptions = {}): Promise<readonly FetchedSkill[]> {
      const fail = sourceErrorFactory('well-known', resolved.source);
      const answer = await downloadIndex(resolved.sourceUrl, fail, callOptions.signal);
      if (answer === undefined) throw fail('not-found', `the index ${resolved.sourceUrl} is gone (HTTP 404)`);
      const digest = `sha256:${sha256(answer.bytes)}`;
      if (resolved.pinned !== undefined && digest !== resolved.pinned)
        throw fail('refused', `the index changed since it was resolved (pinned ${resolved.pinned}, now ${digest})`);
      const entries = parseWellKnownIndex(parseJsonBody(answer, fail), fail);
      const wanted = callOptions.skills;
      if (wanted !== undefined) {
        const missing = wanted.filter((name) => !entries.some((entry) => entry.name === name));
        if (missing.length > 0)
          throw fail(
            'not-found',
            `no skill named ${missing.map((name) => JSON.stringify(name)).join(', ')} in the index; it has ${entries
              .map((entry) => JSON.stringify(entry.name))
              .join(', ')}`,
          );
      }
      const skills: FetchedSkill[] = [];
      for (const entry of entries) {
        if (wanted !== undefined && !wanted.includes(entry.name)) continue;
        const files = await fetchEntry(limits, entry, answer.url, fail, callOptions.signal);
        const [skill] = collectSkills(files, { fail });
        if (skill === undefined || skill.skillPath !== '')
          throw fail('refused', `"${entry.name}": SKILL.md is not at the root of the skill`);
        if (skill.name !== entry.name)
          throw fail(
            'refused',
            `the index names a skill "${entry.name}" whose SKILL.md says its name is "${skill.name}"`,
          );
        skills.push({ ...skill, skillPath: entry.name });
      }
      return skills.sort((a, b) => a.name.localeCompare(b.name));
    },
  };
}

/**
 * One skill of an index: a v0.1 file list (each file on the index's origin, within the archive
 * budget) or a v0.2 artifact (SKILL.md or an archive) whose sha256 must match the index.
 */
async function fetchEntry(
  limits: SourceFetchLimits,
  entry: WellKnownEntry,
  indexUrl: URL,
  fail: SourceErrorFactory,
  signal: AbortSignal | undefined,
): Promise<FetchedFile[]> {
  const checked = archiveLimits(limits.archive);
  const perFile = { ...limits, maxDownloadBytes: Math.min(limits.maxDownloadBytes, checked.maxEntryBytes) };
  const get = async (target: URL, what: string, entryLimits: SourceFetchLimits) => {
    if (target.origin !== indexUrl.origin)
      throw fail('refused', `"${entry.name}": ${what} is on another host (${target.origin}) than the index`);
    const answer = await httpGet({ url: target.href, limits: entryLimits, signal, fail });
    if (answer.status === 404) throw fail('not-found', `"${entry.name}": ${target.href} is missing (HTTP 404)`);
    if (answer.status !== 200)
      throw fail('unavailable', `"${entry.name}": ${target.href} answered HTTP ${answer.status}`);
    return answer;
  };
  if (entry.version === '0.1') {
    const budget = new ArchiveBudget(checked);
    const folder = new URL(`${entry.name}/`, indexUrl);
    const files: FetchedFile[] = [];
    for (const path of entry.files) {
      const answer = await get(new URL(path, folder), `file "${path}"`, perFile);
      try {
        budget.admit(path, answer.bytes.length);
      } catch (error) {
        if (error instanceof UnsafeArchiveError) throw fail('refused', `"${entry.name}": ${error.message}`, error);
        throw error;
      }
      files.push({ path, bytes: answer.bytes, executable: false });
    }
    return files;
  }
  const target = new URL(entry.url, indexUrl);
  const answer = await get(target, 'the artifact', entry.type === 'skill-md' ? perFile : limits);
  const actual = sha256(answer.bytes);
  if (actual !== entry.sha256)
    throw fail(
      'refused',
      `"${entry.name}": the artifact's digest is sha256:${actual}, but the index says sha256:${entry.sha256}; content that does not match its digest is never used`,
    );
  if (entry.type === 'skill-md') return [{ path: 'SKILL.md', bytes: answer.bytes, executable: false }];
  const format = archiveFormat(answer);
  if (format === undefined)
    throw fail(
      'refused',
      `"${entry.name}": the archive is neither application/zip nor application/gzip (.zip, .tar.gz)`,
    );
  return archiveTree(answer.bytes, { format, stripTopFolder: false, limits, fail });
}
