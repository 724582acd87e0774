import { isPlainRecord } from '../../format/is-plain-record.js';
import type { FetchedSkill, ResolvedSource, SkillSource, SourceSearchResult } from '../skill-source.js';
import { collectSkills } from './collect-skills.js';
import type { GitHubSkillSource } from './github-source.js';
import { httpGet, parseJsonBody } from './http-get.js';
import { type SourceErrorFactory, sourceErrorFactory } from './skill-source-error.js';
import { type SourceFetchLimits, sourceFetchLimits } from './source-limits.js';

/** Options of `createSkillsShSource`: the search API base URL and fetch limits. */
export interface SkillsShSourceOptions {
  /** The skills.sh service, `https://skills.sh` by default (the `skills` CLI reads `SKILLS_API_URL`). */
  readonly baseUrl?: string;
  readonly limits?: Partial<SourceFetchLimits>;
}

/**
 * `skills.sh/owner/repo[/skill]` (the address of a repository's or a skill's page there), or
 * `skills-sh:owner/repo[/skill]`.
 */
function parseSkillsShReference(reference: string) {
  const match =
    /^(?:https:\/\/)?(?:skills\.sh\/|skills-sh:)([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9._-]+)(?:\/([A-Za-z0-9._-]+))?$/.exec(
      reference,
    );
  if (match === null) return undefined;
  const [, owner, repo, skill] = match as unknown as [string, string, string, string | undefined];
  return { location: { owner, repo, path: '', ref: undefined }, skill };
}

/**
 * skills.sh: its search API (`GET /api/search?q=&limit=`, as the `skills` CLI calls it) and its skill
 * pages (`skills.sh/owner/repo/skill`). skills.sh indexes GitHub repositories, so a skill is fetched
 * from GitHub (pinned to a commit, one archive) and found in the repository by name.
 */
export function createSkillsShSource(github: GitHubSkillSource, options: SkillsShSourceOptions = {}): SkillSource {
  const base = (options.baseUrl ?? 'https://skills.sh').replace(/\/+$/, '');
  const limits = sourceFetchLimits(options.limits);

  function parse(reference: string, fail: SourceErrorFactory) {
    const parsed = parseSkillsShReference(reference);
    if (parsed === undefined) throw fail('invalid-reference', 'not in the form skills.sh/owner/repo[/skill]');
    return parsed;
  }

  return {
    type: 'skills-sh',
    matches: (reference) => parseSkillsShReference(reference) !== undefined,
    async resolve(reference, callOptions = {}): Promise<ResolvedSource> {
      const fail = sourceErrorFactory('skills-sh', reference);
      const { location } = parse(reference, fail);
      const pinned = callOptions.ref === undefined ? location : { ...location, ref: callOptions.ref };
      const { commit, ref } = await github.resolveCommit(pinned, fail, callOptions.signal);
      return {
        sourceType: 'skills-sh',
        source: reference,
        sourceUrl: github.repositoryUrl(location),
        ref,
        pinned: commit,
      };
    },
    async fetch(resolved, callOptions = {}): Promise<readonly FetchedSkill[]> {
      const fail = sourceErrorFactory('skills-sh', resolved.source);
      const { location, skill } = parse(resolved.source, fail);
      if (resolved.pinned === undefined) throw fail('invalid-reference', 'the resolved source has no pinned commit');
      if (skill !== undefined && callOptions.skills !== undefined && !callOptions.skills.includes(skill))
        throw fail(
          'not-found',
          `no skill named ${callOptions.skills.map((name) => `"${name}"`).join(', ')}; it has "${skill}"`,
        );
      const tree = await github.downloadTree(location, resolved.pinned, fail, callOptions.signal);
      return collectSkills(tree, { skills: skill === undefined ? callOptions.skills : [skill], fail });
    },
    async search(query, callOptions = {}): Promise<readonly SourceSearchResult[]> {
      const fail = sourceErrorFactory('skills-sh', query);
      const url = `${base}/api/search?q=${encodeURIComponent(query)}&limit=${callOptions.limit ?? 10}`;
      const answer = await httpGet({
        url,
        headers: { accept: 'application/json' },
        limits,
        signal: callOptions.signal,
        fail,
      });
      if (answer.status !== 200) throw fail('unavailable', `skills.sh search answered HTTP ${answer.status}`);
      const body = parseJsonBody(answer, fail);
      if (!isPlainRecord(body) || !Array.isArray(body.skills))
        throw fail('unavailable', 'skills.sh search gave no "skills" array');
      const results: SourceSearchResult[] = [];
      for (const hit of body.skills as unknown[]) {
        if (!isPlainRecord(hit) || typeof hit.id !== 'string' || typeof hit.name !== 'string') continue;
        const reference = `skills.sh/${hit.id}`;
        if (parseSkillsShReference(reference) === undefined) continue;
        const installs = typeof hit.installs === 'number' ? hit.installs : undefined;
        const origin = typeof hit.source === 'string' ? hit.source : hit.id.split('/').slice(0, 2).join('/');
        results.push({
          name: hit.name,
          description: `Indexed by skills.sh from ${origin}${installs === undefined ? '' : ` · ${installs} installs`}`,
          source: reference,
          ...(installs === undefined ? {} : { installs }),
        });
      }
      return results;
    },
  };
}
