import { isPlainRecord } from '../../format/is-plain-record.js';
import type { FetchedSkill, ResolvedSource, SkillSource, SourceSearchResult } from '../skill-source.js';
import { archiveTree } from './archive-tree.js';
import { collectSkills } from './collect-skills.js';
import type { GitHubSkillSource } from './github-source.js';
import { httpGet, parseJsonBody } from './http-get.js';
import { type SourceErrorFactory, sourceErrorFactory } from './skill-source-error.js';
import { type SourceFetchLimits, sourceFetchLimits } from './source-limits.js';

/** Options of `createClawHubSource`: the API base URL and fetch limits. */
export interface ClawHubSourceOptions {
  /** The ClawHub API origin, `https://clawhub.ai` by default (paths are under `/api/v1`). */
  readonly baseUrl?: string;
  /** A ClawHub token (`clh_…`), sent as `Authorization: Bearer` to the API origin only. */
  readonly token?: string | undefined;
  /** Origins the download endpoint may redirect to (a storage host); none by default. */
  readonly downloadOrigins?: readonly string[];
  readonly limits?: Partial<SourceFetchLimits>;
}

const slugPattern = /^[a-z0-9][a-z0-9-]{0,127}$/;
const versionPattern = /^[0-9A-Za-z.+-]{1,64}$/;

function parseClawHubReference(reference: string) {
  if (!reference.startsWith('clawhub:')) return undefined;
  const [slug, version, ...rest] = reference.slice('clawhub:'.length).split('@');
  if (slug === undefined || !slugPattern.test(slug) || rest.length > 0) return undefined;
  if (version !== undefined && !versionPattern.test(version)) return undefined;
  return { slug, version };
}

/**
 * ClawHub (`clawhub:slug[@version]`): the version is resolved through `GET /api/v1/skills/{slug}`
 * (or checked at `/versions/{version}`), the skill downloaded as one zip from
 * `GET /api/v1/download?slug=&version=` and read by the safe archive reader. A GitHub-backed skill,
 * which ClawHub answers with a JSON handoff (`repo`, `commit`, `path`), is fetched from GitHub at
 * that commit. Search is `GET /api/v1/search?q=&limit=`.
 */
export function createClawHubSource(github: GitHubSkillSource, options: ClawHubSourceOptions = {}): SkillSource {
  const api = `${(options.baseUrl ?? 'https://clawhub.ai').replace(/\/+$/, '')}/api/v1`;
  const limits = sourceFetchLimits(options.limits);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token !== undefined && options.token !== '') headers.authorization = `Bearer ${options.token}`;

  function parse(reference: string, fail: SourceErrorFactory) {
    const parsed = parseClawHubReference(reference);
    if (parsed === undefined) throw fail('invalid-reference', 'not in the form clawhub:slug[@version]');
    return parsed;
  }

  async function getJson(path: string, fail: SourceErrorFactory, signal: AbortSignal | undefined) {
    const answer = await httpGet({ url: `${api}${path}`, headers, limits, signal, fail });
    if (answer.status === 404 || answer.status === 410) return undefined;
    if (answer.status !== 200)
      throw fail('unavailable', `ClawHub answered HTTP ${answer.status} for ${path.split('?')[0]}`);
    return parseJsonBody(answer, fail);
  }

  return {
    type: 'clawhub',
    matches: (reference) => parseClawHubReference(reference) !== undefined,
    async resolve(reference, callOptions = {}): Promise<ResolvedSource> {
      const fail = sourceErrorFactory('clawhub', reference);
      const { slug, version: given } = parse(reference, fail);
      const wanted = callOptions.ref ?? given;
      let version = wanted;
      if (wanted === undefined) {
        const body = await getJson(`/skills/${slug}`, fail, callOptions.signal);
        if (body === undefined) throw fail('not-found', `ClawHub has no skill "${slug}"`);
        const latest =
          isPlainRecord(body) && isPlainRecord(body.latestVersion) ? body.latestVersion.version : undefined;
        if (typeof latest !== 'string' || !versionPattern.test(latest))
          throw fail('unavailable', `ClawHub gave no latest version for "${slug}"`);
        version = latest;
      } else if (
        (await getJson(`/skills/${slug}/versions/${encodeURIComponent(wanted)}`, fail, callOptions.signal)) ===
        undefined
      ) {
        throw fail('not-found', `ClawHub has no version "${wanted}" of "${slug}"`);
      }
      return {
        sourceType: 'clawhub',
        source: reference,
        sourceUrl: `${api}/skills/${slug}`,
        ...(wanted === undefined ? {} : { ref: wanted }),
        pinned: version as string,
      };
    },
    async fetch(resolved, callOptions = {}): Promise<readonly FetchedSkill[]> {
      const fail = sourceErrorFactory('clawhub', resolved.source);
      const { slug } = parse(resolved.source, fail);
      if (resolved.pinned === undefined) throw fail('invalid-reference', 'the resolved source has no pinned version');
      const query = `slug=${encodeURIComponent(slug)}&version=${encodeURIComponent(resolved.pinned)}`;
      const answer = await httpGet({
        url: `${api}/download?${query}`,
        headers,
        redirectOrigins: options.downloadOrigins ?? [],
        limits,
        signal: callOptions.signal,
        fail,
      });
      if (answer.status === 404 || answer.status === 410)
        throw fail('not-found', `ClawHub has no download of "${slug}" ${resolved.pinned}`);
      if (answer.status !== 200) throw fail('unavailable', `the ClawHub download answered HTTP ${answer.status}`);
      const type = answer.headers.get('content-type') ?? '';
      if (type.startsWith('application/json')) {
        const handoff = parseJsonBody(answer, fail);
        if (
          !isPlainRecord(handoff) ||
          handoff.sourceRef !== 'public-github' ||
          typeof handoff.repo !== 'string' ||
          typeof handoff.commit !== 'string' ||
          !/^[0-9a-f]{40}$/.test(handoff.commit)
        )
          throw fail('unavailable', 'ClawHub answered JSON that is not a GitHub handoff (repo, commit)');
        const [owner, repo] = handoff.repo.split('/');
        const path = typeof handoff.path === 'string' ? handoff.path.replace(/^\/+|\/+$/g, '') : '';
        if (owner === undefined || repo === undefined || path.split('/').includes('..'))
          throw fail(
            'refused',
            `ClawHub's GitHub handoff names an unusable repository or path (${handoff.repo}, ${path})`,
          );
        const tree = await github.downloadTree(
          { owner, repo, path, ref: undefined },
          handoff.commit,
          fail,
          callOptions.signal,
        );
        return collectSkills(tree, { subPath: path, skills: callOptions.skills, fail });
      }
      const tree = await archiveTree(answer.bytes, { format: 'zip', stripTopFolder: false, limits, fail });
      return collectSkills(tree, { skills: callOptions.skills, fail });
    },
    async search(query, callOptions = {}): Promise<readonly SourceSearchResult[]> {
      const fail = sourceErrorFactory('clawhub', query);
      const body = await getJson(
        `/search?q=${encodeURIComponent(query)}&limit=${callOptions.limit ?? 10}`,
        fail,
        callOptions.signal,
      );
      if (!isPlainRecord(body) || !Array.isArray(body.results))
        throw fail('unavailable', 'ClawHub search gave no "results" array');
      return (body.results as unknown[]).flatMap((hit) => {
        if (!isPlainRecord(hit) || typeof hit.slug !== 'string' || !slugPattern.test(hit.slug)) return [];
        const description = typeof hit.summary === 'string' ? hit.summary : '';
        return [{ name: hit.slug, description, source: `clawhub:${hit.slug}` }];
      });
    },
  };
}
