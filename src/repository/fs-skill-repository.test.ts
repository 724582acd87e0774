import { realpath, rm, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  SkillFileNotFoundError,
  SkillFileReadError,
  SkillNotFoundError,
  SkillPathError,
  StrictRepositoryError,
} from './errors.js';
import { FsSkillRepository } from './fs-skill-repository.js';
import { createSkillTree, type SkillTree, skillMarkdown } from './testing/skill-tree.js';

const trees: SkillTree[] = [];
async function tree(entries: Parameters<typeof createSkillTree>[0]): Promise<SkillTree & { real: string }> {
  const created = await createSkillTree(entries);
  trees.push(created);
  return Object.assign(created, { real: await realpath(created.dir) });
}
afterEach(async () => {
  await Promise.all(trees.splice(0).map((created) => created.remove()));
});

const names = async (repository: FsSkillRepository): Promise<string[]> =>
  (await repository.list()).map((summary) => summary.name);

describe('FsSkillRepository scanning', () => {
  it('finds skills at any depth, SKILL.md or skill.md, and a skill owns its subtree', async () => {
    const root = await tree({
      'alpha/SKILL.md': skillMarkdown('alpha', 'First.'),
      'alpha/nested/SKILL.md': skillMarkdown('nested', 'Bundled, not a skill.'),
      'group/deeper/beta/skill.md': skillMarkdown('beta', 'Lower-case file name.'),
      '.hidden/gamma/SKILL.md': skillMarkdown('gamma', 'Hidden folders are scanned.'),
      'node_modules/pkg/SKILL.md': skillMarkdown('from-node-modules', 'Skipped.'),
      '.git/x/SKILL.md': skillMarkdown('from-git', 'Skipped.'),
      '.venv/lib/SKILL.md': skillMarkdown('from-venv', 'Skipped.'),
      '__pycache__/SKILL.md': skillMarkdown('from-pycache', 'Skipped.'),
      'empty/folder/README.md': 'not a skill',
    });
    const repository = await FsSkillRepository.open({ roots: [root.dir] });
    expect(await repository.list()).toEqual([
      { name: 'alpha', description: 'First.', path: `${root.real}/alpha`, root: root.real },
      { name: 'beta', description: 'Lower-case file name.', path: `${root.real}/group/deeper/beta`, root: root.real },
      {
        name: 'gamma',
        description: 'Hidden folders are scanned.',
        path: `${root.real}/.hidden/gamma`,
        root: root.real,
      },
    ]);
    expect(await repository.listFiles('alpha')).toEqual(['SKILL.md', 'nested/SKILL.md']);
    expect((await repository.get('alpha')).docs).toEqual(['nested/SKILL.md']);
  });

  it('uses the folder name when the frontmatter has no name, and a root can itself be a skill', async () => {
    const root = await tree({ 'SKILL.md': '---\ndescription: Root skill without a name.\n---\nBody\n' });
    const repository = await FsSkillRepository.open({ roots: [root.dir] });
    const [summary] = await repository.list();
    expect(summary?.path).toBe(root.real);
    expect(summary?.name).toBe(root.real.split('/').pop());
  });

  it('lets the first root, then the first path, win a name and reports the rest as shadowed', async () => {
    const first = await tree({
      'b/SKILL.md': skillMarkdown('same', 'first root, second path'),
      'a/SKILL.md': skillMarkdown('same', 'first root, first path'),
    });
    const second = await tree({
      'x/SKILL.md': skillMarkdown('same', 'second root'),
      'y/SKILL.md': skillMarkdown('other', 'o'),
    });
    const repository = await FsSkillRepository.open({ roots: [first.dir, second.dir] });
    expect((await repository.list()).map((summary) => summary.description)).toEqual(['o', 'first root, first path']);
    expect((await repository.report()).shadowed).toEqual([
      { name: 'same', path: `${first.real}/b`, winner: `${first.real}/a` },
      { name: 'same', path: `${second.real}/x`, winner: `${first.real}/a` },
    ]);
    expect((await repository.get('same')).root).toBe(first.real);
  });

  it('counts a root given twice (or through a link) once', async () => {
    const root = await tree({ 'a/SKILL.md': skillMarkdown('a', 'A.'), alias: { link: '.' } });
    const repository = await FsSkillRepository.open({ roots: [root.dir, root.path('alias'), root.path('a/..')] });
    expect(repository.roots()).toEqual([root.real]);
    expect((await repository.report()).shadowed).toEqual([]);
  });

  it('finds a skill under overlapping roots once, whichever root comes first, and strict mode accepts it', async () => {
    const root = await tree({
      'skills/a/SKILL.md': skillMarkdown('a', 'A.'),
      'skills/broken/SKILL.md': { folder: true },
      'other/b/SKILL.md': skillMarkdown('b', 'B.'),
    });
    const elsewhere = await tree({ alias: { link: root.path('skills') } });
    const inner = `${root.real}/skills`;
    for (const roots of [
      [root.dir, root.path('skills')],
      [root.path('skills'), root.dir],
      [elsewhere.path('alias'), root.dir],
    ]) {
      const repository = await FsSkillRepository.open({ roots });
      const report = await repository.report();
      expect(report.shadowed).toEqual([]);
      expect(report.skipped.map((skipped) => skipped.path)).toEqual([`${inner}/broken/SKILL.md`]);
      const summaries = await repository.list();
      expect(summaries.map((summary) => [summary.name, summary.path])).toEqual([
        ['a', `${inner}/a`],
        ['b', `${root.real}/other/b`],
      ]);
      // The skill belongs to the root it was first found under.
      expect(summaries[0]?.root).toBe(roots[0] === root.dir ? root.real : inner);
    }
    await rm(root.path('skills/broken'), { recursive: true });
    await expect(
      FsSkillRepository.open({ roots: [root.dir, root.path('skills')], strict: true }),
    ).resolves.toBeInstanceOf(FsSkillRepository);
    await expect(
      FsSkillRepository.open({ roots: [root.path('skills'), root.dir], strict: true }),
    ).resolves.toBeInstanceOf(FsSkillRepository);
  });

  it('follows links inside the root, not out of it, and reports loops', async () => {
    const outside = await tree({ 'escaped/SKILL.md': skillMarkdown('escaped', 'Outside the root.') });
    const root = await tree({
      'real/inner/SKILL.md': skillMarkdown('inner', 'Reached by name and through a link.'),
      linked: { link: 'real' },
      out: { link: outside.dir },
      'loop/back': { link: '..' },
    });
    const repository = await FsSkillRepository.open({ roots: [root.dir] });
    expect(await names(repository)).toEqual(['inner']);
    const report = await repository.report();
    expect(report.shadowed).toEqual([]);
    expect(report.warnings).toContainEqual(
      expect.stringContaining(`not following ${root.real}/out: the link leads out of the root`),
    );
    expect(report.warnings).toContainEqual(
      expect.stringContaining(`not following ${root.real}/loop/back: the link leads back`),
    );
  });

  it('stops at the depth bound with a warning', async () => {
    const root = await tree({
      'one/SKILL.md': skillMarkdown('one', 'Depth 1.'),
      'a/b/c/three/SKILL.md': skillMarkdown('three', 'Depth 4.'),
    });
    const repository = await FsSkillRepository.open({ roots: [root.dir], maxDepth: 3 });
    expect(await names(repository)).toEqual(['one']);
    expect((await repository.report()).warnings).toEqual([
      `1 folder under ${root.real} deeper than 3 levels (maxDepth) not scanned, first: ${root.real}/a/b/c/three`,
    ]);
  });

  it('stops at the entry bound with a warning', async () => {
    const entries: Record<string, string> = {};
    for (let index = 0; index < 30; index += 1)
      entries[`s${String(index).padStart(2, '0')}/SKILL.md`] = skillMarkdown(`s${index}`, 'x');
    const root = await tree(entries);
    const repository = await FsSkillRepository.open({ roots: [root.dir], maxEntries: 40 });
    // 30 entries at the top, then one per skill folder: the 11th folder crosses 40.
    expect((await repository.list()).length).toBe(10);
    expect((await repository.report()).warnings[0]).toMatch(/stopped scanning .* after 40 entries \(maxEntries\)/);
  });

  it('rejects unusable options naming the option', async () => {
    await expect(FsSkillRepository.open({ roots: [''] })).rejects.toThrow(
      'createFsSkillRepository: option "roots[0]" must be a non-empty folder path; got ""',
    );
    await expect(FsSkillRepository.open({ roots: ['/tmp'], maxDepth: 0 })).rejects.toMatchObject({
      component: 'createFsSkillRepository',
      option: 'maxDepth',
      problem: 'must be a positive integer; got 0',
    });
    await expect(FsSkillRepository.open({ roots: 'skills' as never })).rejects.toThrow('"roots" must be an array');
  });
});

describe('FsSkillRepository roots', () => {
  it('scans the standard roots in order when none are given, SKILLS_ROOT first', async () => {
    const project = await tree({
      '.agents/skills/a/SKILL.md': skillMarkdown('shared', 'project .agents'),
      '.claude/skills/b/SKILL.md': skillMarkdown('claude-only', 'project .claude'),
      'skills/c/SKILL.md': skillMarkdown('shared', 'project skills'),
    });
    const home = await tree({ '.claude/skills/d/SKILL.md': skillMarkdown('home-skill', 'home .claude') });
    const environment = await tree({ 'e/SKILL.md': skillMarkdown('shared', 'from SKILLS_ROOT') });
    const repository = await FsSkillRepository.open({
      cwd: project.dir,
      home: home.dir,
      env: { SKILLS_ROOT: `${environment.dir}:ftp://example.com/skills.zip:${project.path('missing')}` },
    });
    expect(repository.roots()).toEqual([
      environment.real,
      `${project.real}/.agents/skills`,
      `${project.real}/.claude/skills`,
      `${project.real}/skills`,
      `${home.real}/.claude/skills`,
    ]);
    const summaries = await repository.list();
    expect(summaries.map((summary) => `${summary.name}: ${summary.description}`)).toEqual([
      'claude-only: project .claude',
      'home-skill: home .claude',
      'shared: from SKILLS_ROOT',
    ]);
    const { warnings } = await repository.report();
    expect(warnings).toContain(
      'skills root ftp://example.com/skills.zip is a URL of a scheme that is not supported (http, https and file are), so it was skipped',
    );
    expect(warnings).toContain(`skills root ${project.real}/missing does not exist`);
    // Absent standard folders (~/.agents/skills here) are not worth a warning.
    expect(warnings).toHaveLength(2);
  });

  it('accepts file:// roots and relative roots against cwd', async () => {
    const root = await tree({ 'skills/a/SKILL.md': skillMarkdown('a', 'A.') });
    const byUrl = await FsSkillRepository.open({ roots: [`file://${root.real}/skills`] });
    const byRelative = await FsSkillRepository.open({ roots: ['skills'], cwd: root.dir });
    expect(await names(byUrl)).toEqual(['a']);
    expect(await names(byRelative)).toEqual(['a']);
  });
});

describe('FsSkillRepository reading', () => {
  async function readingFixture(): Promise<{ repository: FsSkillRepository; root: SkillTree & { real: string } }> {
    const outside = await tree({ 'secret.txt': 'outside the skill' });
    const root = await tree({
      'tool/SKILL.md': `---\nname: tool\ndescription: Reads files.\nlicense: MIT\nallowed-tools: Bash Read\nmetadata:\n  owner: team\n---\n# Tool\n\nTools:\n- read_data\n- write_data\n`,
      'tool/docs/usage.md': 'usage',
      'tool/docs/Table.CSV': 'a,b',
      'tool/README.txt': 'readme',
      'tool/scripts/run.py': 'print(1)',
      'tool/assets/image.png': new Uint8Array([0, 1, 2]),
      'tool/node_modules/dep/index.md': 'vendored',
      'tool/.hidden/notes.md': 'hidden doc',
      'tool/docs/alias.md': { link: 'usage.md' },
      'tool/docs/leak.md': { link: `${outside.dir}/secret.txt` },
      'tool/docs/dangling.md': { link: 'gone.md' },
      'tool/docs/out-folder': { link: outside.dir },
      'tool/docs/loop': { link: '..' },
      'other/SKILL.md': skillMarkdown('other', 'Sibling skill.'),
      'other/private.md': 'belongs to another skill',
    });
    return { repository: await FsSkillRepository.open({ roots: [root.dir] }), root };
  }

  it('gets the body, sorted docs, the Tools: list and metadata', async () => {
    const { repository, root } = await readingFixture();
    const skill = await repository.get('tool');
    expect(skill).toMatchObject({
      name: 'tool',
      description: 'Reads files.',
      path: `${root.real}/tool`,
      root: root.real,
      body: expect.stringMatching(/^# Tool\n\nTools:\n- read_data\n- write_data\n?$/),
      tools: ['read_data', 'write_data'],
      allowedTools: ['Bash', 'Read'],
      license: 'MIT',
      metadata: { owner: 'team' },
    });
    expect(skill.docs).toEqual(['.hidden/notes.md', 'README.txt', 'docs/Table.CSV', 'docs/alias.md', 'docs/usage.md']);
    expect(await repository.listFiles('tool')).toEqual([
      '.hidden/notes.md',
      'README.txt',
      'SKILL.md',
      'assets/image.png',
      'docs/Table.CSV',
      'docs/alias.md',
      'docs/usage.md',
      'scripts/run.py',
    ]);
  });

  it('reads bundled files and refuses paths that leave the skill folder', async () => {
    const { repository } = await readingFixture();
    expect((await repository.readFile('tool', 'docs/alias.md')).toString()).toBe('usage');
    expect([...(await repository.readFile('tool', 'assets/image.png'))]).toEqual([0, 1, 2]);
    expect((await repository.readFile('tool', 'docs/loop/README.txt')).toString()).toBe('readme');
    await expect(repository.readFile('tool', '/etc/passwd')).rejects.toBeInstanceOf(SkillPathError);
    await expect(repository.readFile('tool', '../other/private.md')).rejects.toBeInstanceOf(SkillPathError);
    await expect(repository.readFile('tool', 'docs/../../other/private.md')).rejects.toBeInstanceOf(SkillPathError);
    await expect(repository.readFile('tool', 'docs/leak.md')).rejects.toThrow(
      'a link in the path leads out of the skill folder',
    );
    await expect(repository.readFile('tool', 'docs/out-folder/secret.txt')).rejects.toBeInstanceOf(SkillPathError);
    await expect(repository.readFile('tool', 'docs/dangling.md')).rejects.toBeInstanceOf(SkillFileNotFoundError);
    await expect(repository.readFile('tool', 'docs')).rejects.toBeInstanceOf(SkillFileReadError);
    await expect(repository.readFile('tool', 'nothing.md')).rejects.toThrow('skill "tool" has no file "nothing.md"');
    await expect(repository.readFile('missing', 'SKILL.md')).rejects.toBeInstanceOf(SkillNotFoundError);
    await expect(repository.get('missing')).rejects.toThrow('skill "missing" not found');
  });

  it('sees an edited SKILL.md without a refresh, and added or removed folders after one', async () => {
    const { repository, root } = await readingFixture();
    await writeFile(root.path('tool/SKILL.md'), skillMarkdown('tool', 'Edited description.', 'New body\n'));
    expect((await repository.get('tool')).body.trimEnd()).toBe('New body');
    expect((await repository.list()).find((summary) => summary.name === 'tool')?.description).toBe(
      'Edited description.',
    );

    await writeFile(root.path('other/SKILL.md'), skillMarkdown('renamed', 'Renamed skill.'));
    expect(await names(repository)).toEqual(['renamed', 'tool']);

    await root.write({ 'added/SKILL.md': skillMarkdown('added', 'New.') });
    await rm(root.path('tool'), { recursive: true });
    expect(await names(repository)).toEqual(['renamed']);
    await expect(repository.get('tool')).rejects.toBeInstanceOf(SkillNotFoundError);
    await repository.refresh();
    expect(await names(repository)).toEqual(['added', 'renamed']);
  });
});

describe('FsSkillRepository strict mode', () => {
  it('fails construction listing every problem', async () => {
    const root = await tree({
      'good/SKILL.md': skillMarkdown('good', 'Fine.'),
      'no-description/SKILL.md': '---\nname: no-description\n---\nBody\n',
      'broken-yaml/SKILL.md': '---\nname: [unclosed\ndescription: x\n---\n',
      'dup-a/SKILL.md': skillMarkdown('dup', 'first'),
      'dup-b/SKILL.md': skillMarkdown('dup', 'second'),
    });
    const failure = await FsSkillRepository.open({ roots: [root.dir, root.path('missing')], strict: true }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StrictRepositoryError);
    const problems = (failure as StrictRepositoryError).problems;
    expect(problems).toHaveLength(4);
    expect(problems[0]).toBe(`skills root ${root.real}/missing does not exist`);
    expect(problems).toContainEqual(expect.stringMatching(new RegExp(`^${root.real}/broken-yaml/SKILL.md: `)));
    expect(problems).toContainEqual(
      expect.stringMatching(new RegExp(`^${root.real}/no-description/SKILL.md: .*description`)),
    );
    expect(problems).toContainEqual(
      `duplicate skill name "dup" at ${root.real}/dup-b (first defined at ${root.real}/dup-a)`,
    );
    expect((failure as Error).message).toMatch(/^4 skill problems \(strict mode\):\n {2}- /);
  });

  it('keeps the previous skills when a strict refresh fails', async () => {
    const root = await tree({ 'good/SKILL.md': skillMarkdown('good', 'Fine.') });
    const repository = await FsSkillRepository.open({ roots: [root.dir], strict: true });
    await root.write({ 'bad/SKILL.md': '---\nname: bad\n---\n' });
    await expect(repository.refresh()).rejects.toBeInstanceOf(StrictRepositoryError);
    expect(await names(repository)).toEqual(['good']);
  });

  it('reports the same problems as skipped and shadowed when lenient', async () => {
    const root = await tree({
      'no-description/SKILL.md': '---\nname: no-description\n---\nBody\n',
      'dup-a/SKILL.md': skillMarkdown('dup', 'first'),
      'dup-b/SKILL.md': skillMarkdown('dup', 'second'),
    });
    const report = await (await FsSkillRepository.open({ roots: [root.dir] })).report();
    expect(report.skipped).toEqual([
      { path: `${root.real}/no-description/SKILL.md`, reason: expect.stringContaining('description') },
    ]);
    expect(report.shadowed).toHaveLength(1);
  });
});
