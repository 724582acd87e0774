import { realpath } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../config/config-error.js';
import { defaultDeniedFileNames } from './bundled-file-rule.js';
import { createBundledFileRule } from './create-bundled-file-rule.js';
import { SkillDefinitionError, SkillPathError } from './errors.js';
import { FsSkillRepository } from './fs-skill-repository.js';
import { MemorySkillRepository } from './memory-skill-repository.js';
import { createSkillTree, type SkillTree, skillMarkdown } from './testing/skill-tree.js';

const trees: SkillTree[] = [];
afterEach(async () => {
  await Promise.all(trees.splice(0).map((created) => created.remove()));
});

/** A skill folder that is also a git checkout with a token in its remote URL, and other secrets lying about. */
async function checkout(): Promise<SkillTree> {
  const tree = await createSkillTree({
    'gitskill/SKILL.md': skillMarkdown('gitskill', 'A skill that is a git checkout.'),
    'gitskill/docs/usage.md': 'usage',
    'gitskill/.git/config': '[remote "origin"]\n\turl = https://x-access-token:ghp_SECRET@example.com/o/r.git\n',
    'gitskill/.env': 'API_KEY=SECRET',
    'gitskill/.env.local': 'API_KEY=SECRET',
    'gitskill/.npmrc': '//registry/:_authToken=SECRET',
    'gitskill/certs/server.pem': 'SECRET',
    'gitskill/keys/id_ed25519': 'SECRET',
    'gitskill/config/credentials.json': '{"secret":"SECRET"}',
    'gitskill/.ssh/known_hosts': 'host',
    'gitskill/node_modules/pkg/index.js': 'module',
    'gitskill/scripts/run.py': 'print(1)',
    'gitskill/notes.md': { link: '.env' },
  });
  trees.push(tree);
  return tree;
}

describe('the bundled file rule', () => {
  it('lists, counts as docs and serves none of the skipped folders and secret-looking files', async () => {
    const tree = await checkout();
    const repository = await FsSkillRepository.open({ roots: [tree.dir] });
    expect(await repository.listFiles('gitskill')).toEqual(['SKILL.md', 'docs/usage.md', 'scripts/run.py']);
    expect((await repository.get('gitskill')).docs).toEqual(['docs/usage.md']);
    const refusals: Record<string, string> = {
      '.git/config': 'it goes through ".git", which is never listed or served',
      '.GIT/config': 'it goes through ".GIT", which is never listed or served',
      'node_modules/pkg/index.js': 'it goes through "node_modules", which is never listed or served',
      '.env': '".env" matches the denied name ".env"',
      '.env.local': '".env.local" matches the denied name ".env.*"',
      '.NPMRC': '".NPMRC" matches the denied name ".npmrc"',
      'certs/server.pem': '"server.pem" matches the denied name "*.pem"',
      'keys/id_ed25519': '"id_ed25519" matches the denied name "id_ed25519*"',
      'config/credentials.json': '"credentials.json" matches the denied name "credentials*.json"',
      '.ssh/known_hosts': '".ssh" matches the denied name ".ssh"',
      'notes.md': 'a link in the path leads to ".env": ".env" matches the denied name ".env"',
    };
    for (const [path, why] of Object.entries(refusals)) {
      const error = await repository.readFile('gitskill', path).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, path).toBeInstanceOf(SkillPathError);
      expect((error as Error).message, path).toContain(`refused path "${path}" in skill "gitskill": ${why}`);
    }
    expect((await repository.readFile('gitskill', 'scripts/run.py')).toString()).toBe('print(1)');
  });

  it('serves what an emptied or extended deny list says, but never paths through skipped folders', async () => {
    const tree = await checkout();
    const open = await FsSkillRepository.open({ roots: [tree.dir], deniedFileNames: [] });
    expect(await open.listFiles('gitskill')).toContain('.env');
    expect((await open.readFile('gitskill', 'notes.md')).toString()).toBe('API_KEY=SECRET');
    await expect(open.readFile('gitskill', '.git/config')).rejects.toBeInstanceOf(SkillPathError);
    const stricter = await FsSkillRepository.open({
      roots: [tree.dir],
      deniedFileNames: [...defaultDeniedFileNames, '*.py'],
    });
    expect(await stricter.listFiles('gitskill')).toEqual(['SKILL.md', 'docs/usage.md']);
    await expect(stricter.readFile('gitskill', 'scripts/run.py')).rejects.toThrow(
      '"run.py" matches the denied name "*.py"',
    );
  });

  it('rejects patterns that cannot match a name, naming the option', async () => {
    await expect(FsSkillRepository.open({ roots: [], deniedFileNames: ['keys/*.pem'] })).rejects.toThrow(
      'createFsSkillRepository: option "deniedFileNames[0]" is matched against one file or folder name and cannot hold a separator; got "keys/*.pem"',
    );
    expect(() => createBundledFileRule(['ok', ''])).toThrow(SkillboxConfigError);
    expect(() => createBundledFileRule(['ok', ''])).toThrow(
      'createBundledFileRule: option "deniedFileNames[1]" must be a non-empty file name pattern; got ""',
    );
  });

  it('matches whole names only, with * and ? and no other special characters', () => {
    const rule = createBundledFileRule(['a?c', 'x.*', '(y)']);
    expect(rule.excludes('abc')).toBe(true);
    expect(rule.excludes('abcd')).toBe(false);
    expect(rule.excludes('x.yaml')).toBe(true);
    expect(rule.excludes('xyaml')).toBe(false);
    expect(rule.excludes('(y)')).toBe(true);
    expect(rule.excludes('y')).toBe(false);
    expect(rule.refusalOf('docs/readme.md')).toBeUndefined();
  });

  it('is applied to skills defined in code at construction', async () => {
    expect(
      () => new MemorySkillRepository([{ name: 'm', description: 'd', body: 'b', files: { 'config/.env': 'K=V' } }]),
    ).toThrow(SkillDefinitionError);
    expect(
      () => new MemorySkillRepository([{ name: 'm', description: 'd', body: 'b', files: { '.git/config': 'x' } }]),
    ).toThrow('skill definition #0: field "files[".git/config"]" would never be served: it goes through ".git"');
    const allowed = new MemorySkillRepository([{ name: 'm', description: 'd', body: 'b', files: { '.env': 'K=V' } }], {
      deniedFileNames: [],
    });
    expect((await allowed.readFile('m', '.env')).toString()).toBe('K=V');
  });

  it('keeps the root scan away from skipped folders whatever their case', async () => {
    const tree = await createSkillTree({
      'Node_Modules/pkg/SKILL.md': skillMarkdown('vendored', 'Skipped.'),
      'ok/SKILL.md': skillMarkdown('ok', 'Found.'),
    });
    trees.push(tree);
    const repository = await FsSkillRepository.open({ roots: [tree.dir] });
    expect((await repository.list()).map((summary) => summary.path)).toEqual([`${await realpath(tree.dir)}/ok`]);
  });
});
