import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsSkillRepository } from '../repository/fs-skill-repository.js';
import { createSkillTree, type SkillTree, skillMarkdown } from '../repository/testing/skill-tree.js';
import type { SkillRepository } from '../repository/types.js';
import { type RunningInspector, startInspector } from './inspector-server.js';
import type { SkillsView } from './inspector-views.js';

let tree: SkillTree | undefined;
let inspector: RunningInspector | undefined;
afterEach(async () => {
  await inspector?.close();
  await tree?.remove();
  inspector = undefined;
  tree = undefined;
});

/** The repository, with every skill read (`get`, `readFile`) counted: what a page load costs. */
function counted(repository: SkillRepository): { repository: SkillRepository; reads: () => number } {
  let reads = 0;
  return {
    repository: {
      list: (context) => repository.list(context),
      get: (name, context) => {
        reads += 1;
        return repository.get(name, context);
      },
      listFiles: (name, context) => repository.listFiles(name, context),
      readFile: (name, path, context) => {
        reads += 1;
        return repository.readFile(name, path, context);
      },
      report: () => repository.report(),
      refresh: () => repository.refresh(),
      generation: () => repository.generation?.(),
    },
    reads: () => reads,
  };
}

async function skills(url: string, query = ''): Promise<SkillsView> {
  const response = await fetch(new URL(`/api/skills${query}`, url));
  expect(response.status).toBe(200);
  return (await response.json()) as SkillsView;
}

describe('/api/skills: computed once per repository generation', () => {
  it('a second load reads no skill again; an edited SKILL.md shows on the next load; a rescan sees a body edit', async () => {
    tree = await createSkillTree({
      'alpha/SKILL.md': skillMarkdown('alpha', 'The first.'),
      'alpha/guide.md': '# Guide\n',
      'beta/SKILL.md': skillMarkdown('beta', 'The second.'),
    });
    const { repository, reads } = counted(await FsSkillRepository.open({ roots: [tree.dir] }));
    inspector = await startInspector({ repository, userId: 'ada', assetsDir: join(tree.dir, 'no-assets') });

    const first = await skills(inspector.url);
    const readsFirst = reads();
    expect(readsFirst).toBeGreaterThanOrEqual(2);
    expect(first.skills.map((skill) => skill.description)).toEqual(['The first.', 'The second.']);

    const second = await skills(inspector.url);
    expect(reads()).toBe(readsFirst);
    expect(second).toEqual(first);

    // The description changes: the repository's listing notices it (its generation moves).
    await writeFile(join(tree.dir, 'beta', 'SKILL.md'), skillMarkdown('beta', 'The second, edited.'));
    const edited = await skills(inspector.url);
    expect(reads()).toBeGreaterThan(readsFirst);
    expect(edited.skills.find((skill) => skill.name === 'beta')?.description).toBe('The second, edited.');
    const readsEdited = reads();
    await skills(inspector.url);
    expect(reads()).toBe(readsEdited);

    // A longer body under the same name and description: not a change of the listing, so the kept
    // page stays until a rescan, which computes it again.
    const bodyBefore = edited.skills.find((skill) => skill.name === 'alpha')?.tokens.body ?? 0;
    await writeFile(
      join(tree.dir, 'alpha', 'SKILL.md'),
      `${skillMarkdown('alpha', 'The first.')}\n${'More steps to follow, one by one. '.repeat(40)}\n`,
    );
    expect((await skills(inspector.url)).skills.find((skill) => skill.name === 'alpha')?.tokens.body).toBe(bodyBefore);
    const rescanned = await skills(inspector.url, '?rescan=1');
    expect(rescanned.skills.find((skill) => skill.name === 'alpha')?.tokens.body).toBeGreaterThan(bodyBefore + 100);
  });

  it('refuses a rescan value it does not know, naming the argument', async () => {
    tree = await createSkillTree({ 'alpha/SKILL.md': skillMarkdown('alpha', 'The first.') });
    const repository = await FsSkillRepository.open({ roots: [tree.dir] });
    inspector = await startInspector({ repository, userId: 'ada', assetsDir: join(tree.dir, 'no-assets') });
    const response = await fetch(new URL('/api/skills?rescan=yes', inspector.url));
    expect(response.status).toBe(400);
    expect(await response.text()).toBe('rescan must be 1 or absent');
  });
});
