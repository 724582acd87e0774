import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filterSkills } from '../repository/filter-skills.js';
import { createFsSkillRepository } from '../repository/fs-skill-repository.js';
import type { SkillRepository } from '../repository/types.js';
import { createCachedCatalog } from './cached-catalog.js';
import { renderCatalog } from './catalog.js';

let root: string;

async function writeSkill(name: string, description: string): Promise<void> {
  await mkdir(join(root, name), { recursive: true });
  await writeFile(
    join(root, name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${description}\n---\nBody of ${name}.\n`,
  );
}

/** The repository, with every `list()` call counted. */
function counted(
  repository: SkillRepository,
  withGeneration: boolean,
): { repository: SkillRepository; lists: () => number } {
  let lists = 0;
  const wrapper: SkillRepository = {
    list: (context) => {
      lists += 1;
      return repository.list(context);
    },
    get: (name, context) => repository.get(name, context),
    listFiles: (name, context) => repository.listFiles(name, context),
    readFile: (name, path, context) => repository.readFile(name, path, context),
    report: () => repository.report(),
    refresh: () => repository.refresh(),
    ...(withGeneration ? { generation: () => repository.generation?.() } : {}),
  };
  return { repository: wrapper, lists: () => lists };
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillbox-cached-catalog-'));
  await writeSkill('alpha', 'Reads alpha files.');
  await writeSkill('beta', 'Writes beta reports.');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('createCachedCatalog', () => {
  it('renders what renderCatalog renders, lists a repository with a generation once, and follows refresh()', async () => {
    const files = await createFsSkillRepository({ roots: [root] });
    const { repository, lists } = counted(files, true);
    const catalog = createCachedCatalog(repository, { tools: ['skill_load'], budget: { tokens: 2000 } });
    const first = await catalog.render();
    expect(first).toBe(renderCatalog({ skills: await files.list(), tools: ['skill_load'], budget: { tokens: 2000 } }));
    for (let step = 0; step < 5; step += 1) expect(await catalog.render()).toBe(first);
    expect(lists()).toBe(1);

    // An edit alone is not looked for (that is the point: no stat per skill per step) ...
    await writeSkill('alpha', 'Reads alpha files, now in parallel.');
    expect(await catalog.render()).toBe(first);
    // ... refresh() (or a watch re-scan) brings it in, and a new skill too.
    await writeSkill('gamma', 'Sorts gamma lists.');
    await repository.refresh();
    const after = await catalog.render();
    expect(after).toContain('- alpha: Reads alpha files, now in parallel.');
    expect(after).toContain('- gamma: Sorts gamma lists.');
    expect(lists()).toBe(2);
  });

  it('lists a repository without a generation at every render, so edits show at once', async () => {
    const files = await createFsSkillRepository({ roots: [root] });
    const { repository, lists } = counted(files, false);
    const catalog = createCachedCatalog(repository, { guidance: false });
    expect(await catalog.render()).toBe('Available skills:\n- alpha: Reads alpha files.\n- beta: Writes beta reports.');
    await writeSkill('beta', 'Writes beta reports as PDF.');
    expect(await catalog.render()).toBe(
      'Available skills:\n- alpha: Reads alpha files.\n- beta: Writes beta reports as PDF.',
    );
    expect(lists()).toBe(2);
  });

  it('keeps one catalog per caller context, so a filtered repository shows each user their own skills', async () => {
    const files = await createFsSkillRepository({ roots: [root] });
    const filtered = filterSkills(files, (summary, context) => summary.name === 'alpha' || context.userId === 'admin');
    const catalog = createCachedCatalog(filtered, { guidance: false });
    expect(await catalog.render({ userId: 'admin' })).toBe(
      'Available skills:\n- alpha: Reads alpha files.\n- beta: Writes beta reports.',
    );
    expect(await catalog.render({ userId: 'guest' })).toBe('Available skills:\n- alpha: Reads alpha files.');
    expect(await catalog.render({ userId: 'admin' })).toContain('beta');
    expect(await catalog.render()).toBe('Available skills:\n- alpha: Reads alpha files.');
  });
});

describe('FsSkillRepository.generation', () => {
  it('grows when the listed skills change (refresh, or list() noticing an edit), not on a refresh that changes nothing', async () => {
    const repository = await createFsSkillRepository({ roots: [root] });
    const start = repository.generation();
    await repository.refresh();
    expect(repository.generation()).toBe(start);
    await writeSkill('gamma', 'Sorts gamma lists.');
    await repository.refresh();
    const added = repository.generation();
    expect(added).toBeGreaterThan(start);
    await writeSkill('gamma', 'Sorts gamma lists quickly.');
    expect(repository.generation()).toBe(added);
    await repository.list();
    expect(repository.generation()).toBeGreaterThan(added);
  });
});
