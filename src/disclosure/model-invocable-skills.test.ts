import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusRoot, hasCorpus } from '../../test/support/corpus.js';
import { SkillDefinitionError } from '../repository/errors.js';
import { FsSkillRepository } from '../repository/fs-skill-repository.js';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { renderCatalog, renderCatalogWithReport } from './catalog.js';
import { isModelInvocable, modelInvocableSkills } from './model-invocable-skills.js';

let folder: string;

async function writeSkill(name: string, frontmatterLines: string[]): Promise<void> {
  await mkdir(join(folder, name), { recursive: true });
  await writeFile(
    join(folder, name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${name} skill\n${frontmatterLines.join('\n')}\n---\n${name} body\n`,
  );
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'skillbox-model-invocable-'));
  await writeSkill('plain', []);
  await writeSkill('user-only', ['disable-model-invocation: true']);
  await writeSkill('user-only-quoted', ['disable-model-invocation: "True"']);
  await writeSkill('internal', ['metadata:', '  internal: true']);
  await writeSkill('explicitly-invocable', ['disable-model-invocation: false', 'metadata:', '  internal: false']);
  await writeSkill('odd-values', ['disable-model-invocation: yes-please', 'metadata: internal']);
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('modelInvocable on summaries', () => {
  it('is false on disk only when the frontmatter says so, and get() carries it too', async () => {
    const repository = await FsSkillRepository.open({ roots: [folder] });
    const summaries = await repository.list();
    expect(summaries.map((summary) => [summary.name, summary.modelInvocable])).toEqual([
      ['explicitly-invocable', undefined],
      ['internal', false],
      ['odd-values', undefined],
      ['plain', undefined],
      ['user-only', false],
      ['user-only-quoted', false],
    ]);
    expect(summaries.every((summary) => !('modelInvocable' in summary) || summary.modelInvocable === false)).toBe(true);
    expect((await repository.get('user-only')).modelInvocable).toBe(false);
    expect('modelInvocable' in (await repository.get('plain'))).toBe(false);
  });

  it('is false in memory for disableModelInvocation or metadata.internal, which SKILL.md shows', async () => {
    const repository = createMemorySkillRepository([
      { name: 'a', description: 'shown', body: 'A' },
      { name: 'b', description: 'user only', body: 'B', disableModelInvocation: true },
      { name: 'c', description: 'internal', body: 'C', metadata: { internal: true } },
      { name: 'd', description: 'shown too', body: 'D', disableModelInvocation: false },
    ]);
    expect(await repository.list()).toEqual([
      { name: 'a', description: 'shown' },
      { name: 'b', description: 'user only', modelInvocable: false },
      { name: 'c', description: 'internal', modelInvocable: false },
      { name: 'd', description: 'shown too' },
    ]);
    expect((await repository.readFile('b', 'SKILL.md')).toString()).toBe(
      '---\nname: b\ndescription: user only\ndisable-model-invocation: true\n---\nB',
    );
    expect((await repository.get('c')).modelInvocable).toBe(false);
  });

  it('refuses a disableModelInvocation that is not a boolean, naming the field', () => {
    expect(() =>
      createMemorySkillRepository([{ name: 'a', description: 'x', body: '', disableModelInvocation: 'yes' as never }]),
    ).toThrow(SkillDefinitionError);
    expect(() =>
      createMemorySkillRepository([{ name: 'a', description: 'x', body: '', disableModelInvocation: 'yes' as never }]),
    ).toThrow('skill definition #0: field "disableModelInvocation" must be a boolean, got string');
  });
});

describe('the catalog', () => {
  const skills = [
    { name: 'plain', description: 'for the model' },
    { name: 'user-only', description: 'typed by the user', modelInvocable: false },
    { name: 'open', description: 'said so', modelInvocable: true },
  ];

  it('leaves out skills that are not model-invocable, and counts only the rest', () => {
    expect(renderCatalog({ skills, guidance: false })).toBe(
      'Available skills:\n- open: said so\n- plain: for the model',
    );
    const report = renderCatalogWithReport({ skills, guidance: false });
    expect([report.described, report.total]).toEqual([2, 2]);
    expect(renderCatalog({ skills: [skills[1]!], guidance: false })).toBe('');
  });

  it('lists them with includeNonModelInvocable', () => {
    expect(renderCatalog({ skills, guidance: false, includeNonModelInvocable: true })).toBe(
      'Available skills:\n- open: said so\n- plain: for the model\n- user-only: typed by the user',
    );
  });

  it('has one rule for the other layers', () => {
    expect(modelInvocableSkills(skills).map((skill) => skill.name)).toEqual(['plain', 'open']);
    expect(modelInvocableSkills(skills, { includeNonModelInvocable: true })).toHaveLength(3);
    expect(isModelInvocable({ modelInvocable: false })).toBe(false);
    expect(isModelInvocable({})).toBe(true);
  });
});

describe.runIf(hasCorpus)('the corpus', () => {
  /** Names of the collection's skills whose frontmatter has the line, found without the parser. */
  async function namesWithLine(collection: string, line: RegExp): Promise<string[]> {
    const root = join(corpusRoot, collection);
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    const names: string[] = [];
    for (const entry of entries.filter((candidate) => candidate.isFile() && candidate.name === 'SKILL.md')) {
      const text = await readFile(join(entry.parentPath, entry.name), 'utf8');
      const frontmatter = text.split('\n---')[0]!;
      if (line.test(frontmatter)) names.push(/^name:\s*(.+)$/m.exec(frontmatter)![1]!.trim());
    }
    return names.sort();
  }

  it('keeps the 24 user-invoked mattpocock skills and the internal vercel skills out of the catalog', async () => {
    for (const [collection, line, count] of [
      ['mattpocock__skills', /^disable-model-invocation: true$/m, 24],
      ['vercel__ai', /^ {2}internal: true$/m, 10],
    ] as const) {
      const hidden = await namesWithLine(collection, line);
      expect(hidden, collection).toHaveLength(count);
      const repository = await FsSkillRepository.open({ roots: [join(corpusRoot, collection)] });
      const summaries = await repository.list();
      const listed = (catalog: string) => [...catalog.matchAll(/^- ([^:]+):/gm)].map((match) => match[1]);
      const catalog = renderCatalog({ skills: summaries, guidance: false });
      expect(listed(catalog)).toEqual(
        summaries.map((summary) => summary.name).filter((name) => !hidden.includes(name)),
      );
      expect(listed(renderCatalog({ skills: summaries, guidance: false, includeNonModelInvocable: true }))).toEqual(
        summaries.map((summary) => summary.name),
      );
    }
  });
});
