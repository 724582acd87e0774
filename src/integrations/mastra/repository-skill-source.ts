import { posix } from 'node:path';
import type { SkillSource, SkillSourceEntry, SkillSourceStat } from '@mastra/core/workspace';
import { throwConfigError } from '../../config/option-problems.js';
import { modelInvocableSkills } from '../../disclosure/model-invocable-skills.js';
import type { SkillContext, SkillRepository } from '../../repository/types.js';

/** Options of `createRepositorySkillSource`: where the skills appear and who is asking. */
export interface RepositorySkillSourceOptions {
  /**
   * The folder the skills appear in, as the Mastra workspace's `skills` option names it (default
   * `skills`, for `new Workspace({ skills: ['skills'], skillSource })`).
   */
  root?: string;
  /** Visibility context (user, tenant, role) for the repository's filter. */
  skillContext?: SkillContext;
}

/** Where a path points: the root, a skill's folder, or a path inside a skill. */
type Located = { kind: 'root' } | { kind: 'skill'; skill: string; inner: string } | undefined;

function segmentsOf(path: string): string[] | undefined {
  const normalized = posix.normalize(`/${path.replace(/\\/g, '/')}`);
  // normalize resolves `..` against the root it was given: a path that needed it to leave is refused.
  if (path.split(/[\\/]/).includes('..')) return undefined;
  return normalized.split('/').filter((segment) => segment !== '' && segment !== '.');
}

/**
 * A skillbox repository as a Mastra `SkillSource`: a Mastra `Workspace` given it
 * (`skillSource`) lists, activates and reads the repository's skills (folders, skills defined in
 * code, MCP servers, filters per user) as if they were folders on disk, `<root>/<skill>/...`.
 * Only skills the model may see are listed (a skill with `disable-model-invocation` stays out),
 * and a path that leaves its skill is refused. Read-only: Mastra only reads skills through it.
 */
export function createRepositorySkillSource(
  repository: SkillRepository,
  options: RepositorySkillSourceOptions = {},
): SkillSource {
  if (typeof repository?.list !== 'function' || typeof repository.readFile !== 'function')
    throwConfigError('createRepositorySkillSource', 'repository', 'must be a SkillRepository');
  const rootSegments = segmentsOf(options.root ?? 'skills');
  if (rootSegments === undefined)
    throwConfigError(
      'createRepositorySkillSource',
      'root',
      `must be a folder path without "..": got ${JSON.stringify(options.root)}`,
    );
  const context = options.skillContext;
  const visible = async () => modelInvocableSkills(await repository.list(context)).map((summary) => summary.name);

  const locate = async (path: string): Promise<Located> => {
    const segments = segmentsOf(path);
    if (segments === undefined || segments.length < rootSegments.length) return undefined;
    if (rootSegments.some((segment, index) => segments[index] !== segment)) return undefined;
    const rest = segments.slice(rootSegments.length);
    if (rest.length === 0) return { kind: 'root' };
    const [skill, ...inner] = rest as [string, ...string[]];
    if (!(await visible()).includes(skill)) return undefined;
    return { kind: 'skill', skill, inner: inner.join('/') };
  };
  /** 'file', 'directory', or undefined for nothing there. */
  const typeOf = async (located: Located): Promise<'file' | 'directory' | undefined> => {
    if (located === undefined) return undefined;
    if (located.kind === 'root' || located.inner === '') return 'directory';
    const files = await repository.listFiles(located.skill, context);
    if (files.includes(located.inner)) return 'file';
    return files.some((file) => file.startsWith(`${located.inner}/`)) ? 'directory' : undefined;
  };
  const missing = (path: string) => Object.assign(new Error(`ENOENT: no such skill file: ${path}`), { code: 'ENOENT' });

  return {
    async exists(path) {
      return (await typeOf(await locate(path))) !== undefined;
    },
    async stat(path) {
      const located = await locate(path);
      const type = await typeOf(located);
      if (type === undefined) throw missing(path);
      const size =
        type === 'file' && located?.kind === 'skill'
          ? (await repository.readFile(located.skill, located.inner, context)).length
          : 0;
      // The repository knows no times; "now" makes Mastra read a skill again rather than keep a stale copy.
      const now = new Date();
      const stat: SkillSourceStat = { name: posix.basename(path), type, size, createdAt: now, modifiedAt: now };
      return stat;
    },
    async readFile(path) {
      const located = await locate(path);
      if ((await typeOf(located)) !== 'file' || located?.kind !== 'skill') throw missing(path);
      return repository.readFile(located.skill, located.inner, context);
    },
    async readdir(path) {
      const located = await locate(path);
      if ((await typeOf(located)) !== 'directory' || located === undefined) throw missing(path);
      if (located.kind === 'root') return (await visible()).map((name) => ({ name, type: 'directory' as const }));
      const prefix = located.inner === '' ? '' : `${located.inner}/`;
      const entries = new Map<string, SkillSourceEntry>();
      for (const file of await repository.listFiles(located.skill, context)) {
        if (!file.startsWith(prefix)) continue;
        const [name, ...deeper] = file.slice(prefix.length).split('/') as [string, ...string[]];
        entries.set(name, { name, type: deeper.length > 0 ? 'directory' : 'file' });
      }
      return [...entries.values()];
    },
    async realpath(path) {
      return path;
    },
  };
}
