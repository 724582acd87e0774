import { isPlainRecord } from '../../format/is-plain-record.js';
import type { FetchedFile, FetchedSkill, ResolvedSource, SkillSource } from '../skill-source.js';
import { collectSkills } from './collect-skills.js';
import { parseGitHubReference } from './github-reference.js';
import type { GitHubSkillSource } from './github-source.js';
import { type SourceErrorFactory, sourceErrorFactory } from './skill-source-error.js';

const manifestPath = '.claude-plugin/marketplace.json';

/** `marketplace:owner/repo[@ref][#plugin]` taken apart. */
function parseMarketplaceReference(reference: string) {
  if (!reference.startsWith('marketplace:')) return undefined;
  const text = reference.slice('marketplace:'.length);
  const hash = text.indexOf('#');
  const location = parseGitHubReference(hash === -1 ? text : text.slice(0, hash));
  const plugin = hash === -1 ? undefined : text.slice(hash + 1);
  if (location === undefined || location.path !== '' || plugin === '') return undefined;
  return { location, plugin };
}

/** A `./relative` folder inside the marketplace root, or an error naming the field. */
function relativeFolder(value: string, field: string, fail: SourceErrorFactory): string {
  if (value === '.' || value === './') return '';
  const path = value.replace(/^\.\//, '').replace(/\/+$/, '');
  if (
    value.startsWith('/') ||
    value.includes('\\') ||
    path.split('/').some((segment) => segment === '..' || segment === '')
  )
    throw fail('refused', `${field} "${value}" leaves the marketplace`);
  return path;
}

function joinFolder(base: string, path: string): string {
  return [base, path].filter((part) => part !== '').join('/');
}

function readJson(tree: readonly FetchedFile[], path: string, fail: SourceErrorFactory): unknown {
  const file = tree.find((candidate) => candidate.path === path);
  if (file === undefined) return undefined;
  try {
    return JSON.parse(Buffer.from(file.bytes).toString('utf8'));
  } catch (error) {
    throw fail('refused', `${path} is not JSON: ${(error as Error).message}`, error);
  }
}

function listedPaths(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

/**
 * The skill folders a marketplace's plugins name: for each plugin whose `source` is a folder of the
 * marketplace repository (`./path`, `.`, or a bare name under `metadata.pluginRoot`), its `skills`
 * entries (from the marketplace entry and the plugin's own `.claude-plugin/plugin.json`) and its
 * default `skills/` folder, as the `skills` CLI reads them. Plugins hosted elsewhere (github, url,
 * npm sources) are named in the error when asked for and otherwise left out.
 */
function pluginSkillFolders(tree: readonly FetchedFile[], plugin: string | undefined, fail: SourceErrorFactory) {
  const manifest = readJson(tree, manifestPath, fail);
  if (manifest === undefined) throw fail('not-found', `the repository has no ${manifestPath}`);
  if (!isPlainRecord(manifest) || !Array.isArray(manifest.plugins))
    throw fail('refused', `${manifestPath} has no "plugins" array`);
  const pluginRoot =
    isPlainRecord(manifest.metadata) && typeof manifest.metadata.pluginRoot === 'string'
      ? relativeFolder(manifest.metadata.pluginRoot, 'metadata.pluginRoot', fail)
      : '';
  const folders = new Set<string>();
  const names: string[] = [];
  for (const entry of manifest.plugins as unknown[]) {
    if (!isPlainRecord(entry) || typeof entry.name !== 'string') continue;
    names.push(entry.name);
    if (plugin !== undefined && entry.name !== plugin) continue;
    if (typeof entry.source !== 'string') {
      if (plugin !== undefined)
        throw fail(
          'refused',
          `plugin "${entry.name}" is hosted outside the marketplace repository; add its source directly`,
        );
      continue;
    }
    const base =
      entry.source.startsWith('./') || entry.source === '.'
        ? relativeFolder(entry.source, `plugin "${entry.name}" source`, fail)
        : joinFolder(pluginRoot, relativeFolder(`./${entry.source}`, `plugin "${entry.name}" source`, fail));
    const own = readJson(tree, joinFolder(base, '.claude-plugin/plugin.json'), fail);
    const listed = [...listedPaths(entry.skills), ...(isPlainRecord(own) ? listedPaths(own.skills) : [])];
    for (const path of listed)
      folders.add(joinFolder(base, relativeFolder(path, `plugin "${entry.name}" skills entry`, fail)));
    const defaultFolder = joinFolder(base, 'skills');
    if (tree.some((file) => file.path.startsWith(`${defaultFolder}/`))) folders.add(defaultFolder);
  }
  if (plugin !== undefined && !names.includes(plugin))
    throw fail(
      'not-found',
      `the marketplace has no plugin "${plugin}"; it has ${names.map((name) => `"${name}"`).join(', ')}`,
    );
  return [...folders];
}

/**
 * Skills from a Claude Code plugin marketplace: a GitHub repository with
 * `.claude-plugin/marketplace.json` (`marketplace:owner/repo[@ref][#plugin]`). The repository comes
 * through the GitHub source (ref pinned to a commit, one archive download); the manifest then says
 * which folders hold the plugins' skills.
 */
export function createMarketplaceSource(github: GitHubSkillSource): SkillSource {
  function parse(reference: string, fail: SourceErrorFactory) {
    const parsed = parseMarketplaceReference(reference);
    if (parsed === undefined) throw fail('invalid-reference', 'not in the form marketplace:owner/repo[@ref][#plugin]');
    return parsed;
  }
  return {
    type: 'marketplace',
    matches: (reference) => parseMarketplaceReference(reference) !== undefined,
    async resolve(reference, options = {}): Promise<ResolvedSource> {
      const fail = sourceErrorFactory('marketplace', reference);
      const { location } = parse(reference, fail);
      const pinned = options.ref === undefined ? location : { ...location, ref: options.ref };
      const { commit, ref } = await github.resolveCommit(pinned, fail, options.signal);
      return {
        sourceType: 'marketplace',
        source: reference,
        sourceUrl: github.repositoryUrl(location),
        ref,
        pinned: commit,
      };
    },
    async fetch(resolved, options = {}): Promise<readonly FetchedSkill[]> {
      const fail = sourceErrorFactory('marketplace', resolved.source);
      const { location, plugin } = parse(resolved.source, fail);
      if (resolved.pinned === undefined) throw fail('invalid-reference', 'the resolved source has no pinned commit');
      const tree = await github.downloadTree(location, resolved.pinned, fail, options.signal);
      const folders = pluginSkillFolders(tree, plugin, fail);
      const found = new Map<string, FetchedSkill>();
      for (const folder of folders)
        for (const skill of collectSkills(tree, { subPath: folder, fail })) found.set(skill.skillPath, skill);
      const files = [...found.values()].flatMap((skill) =>
        skill.files.map((file) => ({ ...file, path: joinFolder(skill.skillPath, file.path) })),
      );
      return collectSkills(files, { skills: options.skills, fail });
    },
  };
}
