import type { FetchedSkill, ResolvedSource, SkillSource, SourceCallOptions } from '../skill-source.js';
import { archiveTree } from './archive-tree.js';
import { collectSkills } from './collect-skills.js';
import { type GitHubReference, parseGitHubReference } from './github-reference.js';
import { httpGet, parseJsonBody } from './http-get.js';
import { type SourceErrorFactory, sourceErrorFactory } from './skill-source-error.js';
import { type SourceFetchLimits, sourceFetchLimits } from './source-limits.js';

/** Where the GitHub source talks to; the defaults are github.com's. */
export interface GitHubSourceOptions {
  /** The REST API, `https://api.github.com` by default. */
  readonly apiBaseUrl?: string;
  /** Origins the API may redirect archive downloads to, `https://codeload.github.com` by default. */
  readonly archiveOrigins?: readonly string[];
  /** The web address repositories are recorded under in `sourceUrl`, `https://github.com` by default. */
  readonly webBaseUrl?: string;
  /** A token for the API (private repositories, higher rate limits); `GITHUB_TOKEN` is the usual value. */
  readonly token?: string | undefined;
  readonly limits?: Partial<SourceFetchLimits>;
}

/** The parts of the GitHub source other sources build on (marketplaces, skills.sh). */
export interface GitHubSkillSource extends SkillSource {
  /** Resolves `owner/repo` at `ref` (the default branch when undefined) to its commit. */
  resolveCommit(
    location: GitHubReference,
    fail: SourceErrorFactory,
    signal: AbortSignal | undefined,
  ): Promise<{ commit: string; ref: string }>;
  /** Downloads one commit of `owner/repo` as a file tree, in one archive request. */
  downloadTree(
    location: GitHubReference,
    commit: string,
    fail: SourceErrorFactory,
    signal: AbortSignal | undefined,
  ): ReturnType<typeof archiveTree>;
  /** `https://github.com/owner/repo.git` for the repository. */
  repositoryUrl(location: GitHubReference): string;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * Skills from a GitHub repository: the ref is resolved to a commit through the API, then the whole
 * commit arrives as ONE tarball (rather than a request per file, which is slow, rate limited and,
 * read as text, corrupts binary files) and is read in memory by the hostile-archive-safe reader.
 */
export function createGitHubSource(options: GitHubSourceOptions = {}): GitHubSkillSource {
  const apiBase = trimSlash(options.apiBaseUrl ?? 'https://api.github.com');
  const webBase = trimSlash(options.webBaseUrl ?? 'https://github.com');
  const archiveOrigins = options.archiveOrigins ?? ['https://codeload.github.com'];
  const limits = sourceFetchLimits(options.limits);
  const token = options.token === undefined || options.token === '' ? undefined : options.token;

  const api: GitHubApi = { apiBase, archiveOrigins, limits, token };
  const resolveCommit = (location: GitHubReference, fail: SourceErrorFactory, signal: AbortSignal | undefined) =>
    resolveGitHubCommit(api, location, fail, signal);
  const downloadTree = (
    location: GitHubReference,
    commit: string,
    fail: SourceErrorFactory,
    signal: AbortSignal | undefined,
  ) => downloadGitHubTree(api, location, commit, fail, signal);

  function parse(reference: string, fail: SourceErrorFactory): GitHubReference {
    const location = parseGitHubReference(reference);
    if (location === undefined) throw fail('invalid-reference', 'not in the form owner/repo[/path][@ref]');
    return location;
  }

  const repositoryUrl = (location: GitHubReference): string => `${webBase}/${location.owner}/${location.repo}.git`;

  return {
    type: 'github',
    resolveCommit,
    downloadTree,
    repositoryUrl,
    matches(reference: string): boolean {
      return parseGitHubReference(reference) !== undefined;
    },
    async resolve(reference, callOptions = {}): Promise<ResolvedSource> {
      const fail = sourceErrorFactory('github', reference);
      const parsed = parse(reference, fail);
      const location = callOptions.ref === undefined ? parsed : { ...parsed, ref: callOptions.ref };
      const { commit, ref } = await resolveCommit(location, fail, callOptions.signal);
      return { sourceType: 'github', source: reference, sourceUrl: repositoryUrl(location), ref, pinned: commit };
    },
    async fetch(
      resolved,
      callOptions: SourceCallOptions & { readonly skills?: readonly string[] } = {},
    ): Promise<readonly FetchedSkill[]> {
      const fail = sourceErrorFactory('github', resolved.source);
      const location = parse(resolved.source, fail);
      if (resolved.pinned === undefined || !/^[0-9a-f]{40}$/.test(resolved.pinned))
        throw fail('invalid-reference', 'the resolved source has no pinned commit; call resolve first');
      const tree = await downloadTree(location, resolved.pinned, fail, callOptions.signal);
      return collectSkills(tree, { subPath: location.path, skills: callOptions.skills, fail });
    },
  };
}

/** Where and how the source reaches GitHub: the API base, archive origins, limits and token. */
interface GitHubApi {
  apiBase: string;
  archiveOrigins: readonly string[];
  limits: SourceFetchLimits;
  token: string | undefined;
}

function apiHeaders(api: GitHubApi, accept: string): Record<string, string> {
  const headers: Record<string, string> = { accept, 'x-github-api-version': '2022-11-28' };
  // The token goes to the API origin only: httpGet never forwards these headers across a redirect.
  if (api.token !== undefined) headers.authorization = `Bearer ${api.token}`;
  return headers;
}

function rateLimitNote(headers: Headers): string {
  return headers.get('x-ratelimit-remaining') === '0'
    ? ' (the API rate limit is used up; set GITHUB_TOKEN for a higher one)'
    : '';
}

async function resolveGitHubCommit(
  api: GitHubApi,
  location: GitHubReference,
  fail: SourceErrorFactory,
  signal: AbortSignal | undefined,
): Promise<{ commit: string; ref: string }> {
  const repoPath = `/repos/${location.owner}/${location.repo}`;
  let ref = location.ref;
  if (ref === undefined) {
    const answer = await httpGet({
      url: `${api.apiBase}${repoPath}`,
      headers: apiHeaders(api, 'application/vnd.github+json'),
      limits: api.limits,
      signal,
      fail,
    });
    if (answer.status === 404)
      throw fail(
        'not-found',
        `GitHub has no repository ${location.owner}/${location.repo}${api.token === undefined ? ' (or it is private and no token was given)' : ''}`,
      );
    if (answer.status !== 200)
      throw fail(
        'unavailable',
        `GitHub answered HTTP ${answer.status} for the repository${rateLimitNote(answer.headers)}`,
      );
    const body = parseJsonBody(answer, fail) as { default_branch?: unknown };
    if (typeof body.default_branch !== 'string' || body.default_branch === '')
      throw fail('unavailable', 'GitHub did not name the default branch of the repository');
    ref = body.default_branch;
  }
  const answer = await httpGet({
    url: `${api.apiBase}${repoPath}/commits/${encodeURIComponent(ref)}`,
    headers: apiHeaders(api, 'application/vnd.github.sha'),
    limits: api.limits,
    signal,
    fail,
  });
  if (answer.status === 404 || answer.status === 422)
    throw fail('not-found', `GitHub has no ref "${ref}" in ${location.owner}/${location.repo} (or no such repository)`);
  if (answer.status !== 200)
    throw fail(
      'unavailable',
      `GitHub answered HTTP ${answer.status} resolving "${ref}"${rateLimitNote(answer.headers)}`,
    );
  const commit = answer.bytes.toString('utf8').trim();
  if (!/^[0-9a-f]{40}$/.test(commit))
    throw fail('unavailable', `GitHub answered "${commit.slice(0, 60)}" for ref "${ref}", not a commit id`);
  return { commit, ref };
}

async function downloadGitHubTree(
  api: GitHubApi,
  location: GitHubReference,
  commit: string,
  fail: SourceErrorFactory,
  signal: AbortSignal | undefined,
): ReturnType<typeof archiveTree> {
  const answer = await httpGet({
    url: `${api.apiBase}/repos/${location.owner}/${location.repo}/tarball/${commit}`,
    headers: apiHeaders(api, 'application/vnd.github+json'),
    redirectOrigins: api.archiveOrigins,
    limits: api.limits,
    signal,
    fail,
  });
  if (answer.status === 404)
    throw fail('not-found', `GitHub has no commit ${commit} in ${location.owner}/${location.repo}`);
  if (answer.status !== 200)
    throw fail('unavailable', `the archive download answered HTTP ${answer.status}${rateLimitNote(answer.headers)}`);
  return archiveTree(answer.bytes, { format: 'tar.gz', stripTopFolder: true, limits: api.limits, fail });
}
