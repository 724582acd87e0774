import { createHash } from 'node:crypto';
import semver from 'semver';
import { isPlainRecord } from '../../format/is-plain-record.js';
import type { FetchedFile, FetchedSkill, ResolvedSource, SkillSource } from '../skill-source.js';
import { archiveTree } from './archive-tree.js';
import { collectSkills } from './collect-skills.js';
import { httpGet, parseJsonBody } from './http-get.js';
import { type SourceErrorFactory, sourceErrorFactory } from './skill-source-error.js';
import { type SourceFetchLimits, sourceFetchLimits } from './source-limits.js';

/** Options of `createNpmSource`: the registry URL and fetch limits. */
export interface NpmSourceOptions {
  /** The registry, `https://registry.npmjs.org` by default. */
  readonly registryUrl?: string;
  /** A registry token for private packages, sent as `Authorization: Bearer` to the registry only. */
  readonly token?: string | undefined;
  /** Origins tarballs may come from besides the registry's own (a registry that serves them from a CDN). */
  readonly tarballOrigins?: readonly string[];
  readonly limits?: Partial<SourceFetchLimits>;
}

/** `npm:name[@range-or-tag]`, scoped names included. */
export function parseNpmReference(reference: string): { name: string; range: string | undefined } | undefined {
  if (!reference.startsWith('npm:')) return undefined;
  const text = reference.slice('npm:'.length);
  const at = text.indexOf('@', text.startsWith('@') ? 1 : 0);
  const name = at === -1 ? text : text.slice(0, at);
  const range = at === -1 ? undefined : text.slice(at + 1);
  // The registry's own name rule: lowercase URL-safe characters, one optional scope.
  if (!/^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/.test(name) || name.length > 214) return undefined;
  if (range !== undefined && /[/\\]/.test(range)) return undefined;
  return { name, range: range === '' ? undefined : range };
}

interface VersionDocument {
  dist?: { tarball?: unknown; integrity?: unknown; shasum?: unknown };
}

interface Packument {
  'dist-tags'?: Record<string, unknown>;
  versions?: Record<string, VersionDocument>;
}

/** Checks the tarball against `dist.integrity` (any of its sha512/sha384/sha256 hashes), else `dist.shasum`. */
function verifyIntegrity(bytes: Buffer, dist: VersionDocument['dist'], fail: SourceErrorFactory): void {
  if (typeof dist?.integrity === 'string' && dist.integrity.trim() !== '') {
    const hashes = dist.integrity.trim().split(/\s+/);
    const usable = hashes
      .map((hash) => /^(sha512|sha384|sha256)-([A-Za-z0-9+/=]+)$/.exec(hash))
      .filter((match) => match !== null);
    if (usable.length === 0) throw fail('refused', `dist.integrity "${dist.integrity}" names no sha256/384/512 hash`);
    for (const [, algorithm, expected] of usable as RegExpExecArray[]) {
      if (
        createHash(algorithm as string)
          .update(bytes)
          .digest('base64') === expected
      )
        return;
    }
    throw fail('refused', 'the tarball does not match dist.integrity (it was changed after publishing, or in transit)');
  }
  if (typeof dist?.shasum === 'string' && /^[0-9a-f]{40}$/.test(dist.shasum)) {
    if (createHash('sha1').update(bytes).digest('hex') === dist.shasum) return;
    throw fail('refused', 'the tarball does not match dist.shasum');
  }
  throw fail('refused', 'the registry gives neither dist.integrity nor dist.shasum, so the tarball cannot be checked');
}

/** The folders `package.json` `skills` lists (a string or an array of `./relative` paths), or undefined. */
function declaredSkillFolders(tree: readonly FetchedFile[], fail: SourceErrorFactory): string[] | undefined {
  const manifest = tree.find((file) => file.path === 'package.json');
  if (manifest === undefined) throw fail('refused', 'the package has no package.json');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(manifest.bytes).toString('utf8'));
  } catch (error) {
    throw fail('refused', `package.json is not JSON: ${(error as Error).message}`, error);
  }
  if (!isPlainRecord(parsed) || parsed.skills === undefined) return undefined;
  const listed = typeof parsed.skills === 'string' ? [parsed.skills] : parsed.skills;
  if (!Array.isArray(listed) || listed.some((entry) => typeof entry !== 'string'))
    throw fail('refused', 'package.json "skills" must be a path or an array of paths');
  return (listed as string[]).map((entry) => {
    const path = entry.replace(/^\.\//, '').replace(/\/+$/, '');
    if (path.startsWith('/') || path.split('/').some((segment) => segment === '..') || path.includes('\\'))
      throw fail('refused', `package.json "skills" entry "${entry}" leaves the package`);
    return path === '.' ? '' : path;
  });
}

/**
 * Skills shipped in npm packages (`npm:name[@range]`). The version is resolved with the registry
 * protocol (packument, dist-tags, semver ranges); the tarball is downloaded once, checked against
 * `dist.integrity`, and read in memory by the safe archive reader. Install scripts are never run.
 * A `skills` field in package.json (a folder or an array of folders, each a skill or a folder of
 * skills) says where the skills are; without it, every SKILL.md folder in the package counts.
 */
export function createNpmSource(options: NpmSourceOptions = {}): SkillSource {
  const registry = (options.registryUrl ?? 'https://registry.npmjs.org').replace(/\/+$/, '');
  const limits = sourceFetchLimits(options.limits);
  const headers: Record<string, string> = {
    accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8',
  };
  if (options.token !== undefined && options.token !== '') headers.authorization = `Bearer ${options.token}`;

  function parse(reference: string, fail: SourceErrorFactory): { name: string; range: string | undefined } {
    const parsed = parseNpmReference(reference);
    if (parsed === undefined) throw fail('invalid-reference', 'not in the form npm:name[@version-range-or-tag]');
    return parsed;
  }

  async function packument(
    name: string,
    fail: SourceErrorFactory,
    signal: AbortSignal | undefined,
  ): Promise<Packument> {
    const answer = await httpGet({
      url: `${registry}/${name.replace('/', '%2f')}`,
      headers,
      limits,
      signal,
      fail,
    });
    if (answer.status === 404) throw fail('not-found', `the registry has no package "${name}"`);
    if (answer.status !== 200) throw fail('unavailable', `the registry answered HTTP ${answer.status} for "${name}"`);
    const body = parseJsonBody(answer, fail);
    if (!isPlainRecord(body) || !isPlainRecord(body.versions))
      throw fail('unavailable', `the registry's document for "${name}" has no versions`);
    return body as Packument;
  }

  return {
    type: 'npm',
    matches: (reference) => parseNpmReference(reference) !== undefined,
    async resolve(reference, callOptions = {}): Promise<ResolvedSource> {
      const fail = sourceErrorFactory('npm', reference);
      const { name, range: given } = parse(reference, fail);
      const range = callOptions.ref ?? given;
      const document = await packument(name, fail, callOptions.signal);
      const versions = Object.keys(document.versions ?? {});
      const tagged = document['dist-tags']?.[range ?? 'latest'];
      const version =
        typeof tagged === 'string'
          ? tagged
          : range !== undefined && semver.validRange(range) !== null
            ? semver.maxSatisfying(versions, range)
            : null;
      if (version === null || version === undefined || document.versions?.[version] === undefined)
        throw fail(
          'not-found',
          `"${name}" has no version matching "${range ?? 'latest'}" (it has ${versions.slice(-5).join(', ') || 'none'})`,
        );
      return {
        sourceType: 'npm',
        source: reference,
        sourceUrl: `${registry}/${name}`,
        ...(range === undefined ? {} : { ref: range }),
        pinned: version,
      };
    },
    async fetch(resolved, callOptions = {}): Promise<readonly FetchedSkill[]> {
      const fail = sourceErrorFactory('npm', resolved.source);
      const { name } = parse(resolved.source, fail);
      const version = resolved.pinned;
      if (version === undefined || semver.valid(version) === null)
        throw fail('invalid-reference', 'the resolved source has no pinned version; call resolve first');
      const document = await packument(name, fail, callOptions.signal);
      const dist = document.versions?.[version]?.dist;
      if (dist === undefined) throw fail('not-found', `"${name}" has no version ${version} any more`);
      if (typeof dist.tarball !== 'string') throw fail('unavailable', `version ${version} has no dist.tarball`);
      const tarballUrl = new URL(dist.tarball, `${registry}/`);
      const allowed = [new URL(registry).origin, ...(options.tarballOrigins ?? [])];
      if (!allowed.includes(tarballUrl.origin))
        throw fail(
          'refused',
          `the tarball is on another host (${tarballUrl.origin}), which this source does not fetch from`,
        );
      const answer = await httpGet({
        url: tarballUrl.href,
        headers:
          tarballUrl.origin === new URL(registry).origin && headers.authorization !== undefined
            ? { authorization: headers.authorization }
            : {},
        limits,
        signal: callOptions.signal,
        fail,
      });
      if (answer.status !== 200) throw fail('unavailable', `the tarball download answered HTTP ${answer.status}`);
      verifyIntegrity(answer.bytes, dist, fail);
      const tree = await archiveTree(answer.bytes, { format: 'tar.gz', stripTopFolder: true, limits, fail });
      const folders = declaredSkillFolders(tree, fail);
      if (folders === undefined) return collectSkills(tree, { skills: callOptions.skills, fail });
      const found = folders.flatMap((folder) => collectSkills(tree, { subPath: folder, fail }));
      return collectSkills(
        found.flatMap((skill) =>
          skill.files.map((file) => ({
            ...file,
            path: `${skill.skillPath === '' ? '' : `${skill.skillPath}/`}${file.path}`,
          })),
        ),
        { skills: callOptions.skills, fail },
      );
    },
  };
}
