import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsSkillRepository } from './fs-skill-repository.js';
import { createSkillTree, type SkillTree, skillMarkdown } from './testing/skill-tree.js';

// Layouts written by other tools: the `skills` CLI (`npx skills add`) keeps one copy of a skill in
// .agents/skills and links it into each agent's folder; agents find a project's skills from any of
// its subfolders.

let tree: SkillTree | undefined;
afterEach(async () => {
  await tree?.remove();
  tree = undefined;
});

async function project(): Promise<{ real: string; home: string }> {
  tree = await createSkillTree({
    'project/.git/HEAD': 'ref: refs/heads/main\n',
    'project/.agents/skills/pdf/SKILL.md': skillMarkdown('pdf', 'Fills PDF forms.'),
    'project/.agents/skills/pdf/forms.md': 'How to fill forms.',
    // What `skills add pdf` writes for Claude Code: a relative link to the canonical copy.
    'project/.claude/skills/pdf': { link: '../../.agents/skills/pdf' },
    'project/.claude/skills/only-claude/SKILL.md': skillMarkdown('only-claude', 'Kept in .claude only.'),
    'project/skills/team/SKILL.md': skillMarkdown('team', 'A team skill in ./skills.'),
    'project/packages/app/src/index.ts': 'export {};\n',
    'home/.claude/skills/personal/SKILL.md': skillMarkdown('personal', 'A personal skill.'),
    // The same canonical-plus-link layout in the home folder (`skills add -g`).
    'home/.agents/skills/global/SKILL.md': skillMarkdown('global', 'A global skill.'),
    'home/.claude/skills/global': { link: '../../.agents/skills/global' },
  });
  return { real: await realpath(tree.dir), home: join(await realpath(tree.dir), 'home') };
}

describe('FsSkillRepository on project layouts', () => {
  it('loads skills linked by the skills CLI once, without warnings, shadowing or skips', async () => {
    const { real, home } = await project();
    const repository = await FsSkillRepository.open({ cwd: join(real, 'project'), home, env: {} });
    const skills = await repository.list();
    expect(skills.map((skill) => [skill.name, skill.path])).toEqual([
      ['global', join(home, '.agents/skills/global')],
      ['only-claude', join(real, 'project/.claude/skills/only-claude')],
      ['pdf', join(real, 'project/.agents/skills/pdf')],
      ['personal', join(home, '.claude/skills/personal')],
      ['team', join(real, 'project/skills/team')],
    ]);
    expect(await repository.report()).toEqual({ skipped: [], shadowed: [], warnings: [] });
    expect((await repository.get('pdf')).docs).toEqual(['forms.md']);
  });

  it('follows a link out of a root into another root, and finds the skill under the first root that reaches it', async () => {
    const { real, home } = await project();
    // .claude first: the linked folder is found there, and the canonical copy is the same skill.
    const repository = await FsSkillRepository.open({
      roots: [join(real, 'project/.claude/skills'), join(real, 'project/.agents/skills')],
      home,
      env: {},
    });
    expect((await repository.list()).map((skill) => [skill.name, skill.path])).toEqual([
      ['only-claude', join(real, 'project/.claude/skills/only-claude')],
      ['pdf', join(real, 'project/.claude/skills/pdf')],
    ]);
    expect(await repository.report()).toEqual({ skipped: [], shadowed: [], warnings: [] });
  });

  it('still refuses a link out of the root when its target is in no root', async () => {
    const { real, home } = await project();
    const repository = await FsSkillRepository.open({ roots: [join(real, 'project/.claude/skills')], home, env: {} });
    expect((await repository.list()).map((skill) => skill.name)).toEqual(['only-claude']);
    expect((await repository.report()).warnings).toEqual([
      `not following ${join(real, 'project/.claude/skills/pdf')}: the link leads out of the root to ${join(real, 'project/.agents/skills/pdf')}`,
    ]);
  });

  it('finds the project skills from a subfolder, walking up to the folder that holds .git', async () => {
    const { real, home } = await project();
    const repository = await FsSkillRepository.open({ cwd: join(real, 'project/packages/app/src'), home, env: {} });
    expect((await repository.list()).map((skill) => skill.name)).toEqual([
      'global',
      'only-claude',
      'pdf',
      'personal',
      'team',
    ]);
    expect((await repository.report()).warnings).toEqual([]);
  });

  it('does not walk up outside a project (no .git up to the home folder)', async () => {
    const { real, home } = await project();
    const outside = join(real, 'loose/sub');
    await mkdir(outside, { recursive: true });
    // Above the current folder, but with no .git above it: not part of what the repository sees.
    await mkdir(join(real, 'loose/.agents/skills/loose'), { recursive: true });
    await writeFile(join(real, 'loose/.agents/skills/loose/SKILL.md'), skillMarkdown('loose', 'Outside a project.'));
    const repository = await FsSkillRepository.open({ cwd: outside, home, env: {} });
    expect((await repository.list()).map((skill) => skill.name)).toEqual(['global', 'personal']);
  });

  it('warns when a root the caller named holds no skill, and not for empty standard roots', async () => {
    const { real, home } = await project();
    const empty = join(real, 'project/packages');
    const named = await FsSkillRepository.open({ roots: [empty], home, env: {} });
    expect((await named.report()).warnings).toEqual([
      `skills root ${empty} holds no skill (no SKILL.md in it or below it)`,
    ]);
    expect(named.rootProblems()).toEqual([]);
    await mkdir(join(home, 'cwd/.agents/skills'), { recursive: true });
    const standard = await FsSkillRepository.open({ cwd: join(home, 'cwd'), home: join(real, 'nobody'), env: {} });
    expect((await standard.report()).warnings).toEqual([]);
  });
});
