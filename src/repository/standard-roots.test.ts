import { describe, expect, it } from 'vitest';
import { splitSkillsRootList, standardSkillRoots } from './standard-roots.js';

describe('standardSkillRoots', () => {
  it('puts SKILLS_ROOT entries first, then the project and home folders in order', () => {
    const roots = standardSkillRoots({
      cwd: '/project',
      home: '/home/ada',
      env: { SKILLS_ROOT: '/opt/skills:relative/skills' },
    });
    expect(roots).toEqual([
      '/opt/skills',
      '/project/relative/skills',
      '/project/.agents/skills',
      '/project/.claude/skills',
      '/project/skills',
      '/home/ada/.agents/skills',
      '/home/ada/.claude/skills',
    ]);
  });

  it('adds the roots of every folder up to the one holding .git, nearest first', async () => {
    const { mkdtemp, mkdir, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const top = await mkdtemp(join(tmpdir(), 'skillbox-standard-roots-'));
    try {
      await mkdir(join(top, 'repo/.git'), { recursive: true });
      await mkdir(join(top, 'repo/a/b'), { recursive: true });
      expect(standardSkillRoots({ cwd: join(top, 'repo/a/b'), home: '/h', env: {} })).toEqual([
        ...['repo/a/b', 'repo/a', 'repo'].flatMap((folder) =>
          ['.agents/skills', '.claude/skills', 'skills'].map((root) => join(top, folder, root)),
        ),
        '/h/.agents/skills',
        '/h/.claude/skills',
      ]);
    } finally {
      await rm(top, { recursive: true, force: true });
    }
  });

  it('gives only the five standard folders when SKILLS_ROOT is unset or blank', () => {
    expect(standardSkillRoots({ cwd: '/p', home: '/h', env: {} })).toHaveLength(5);
    expect(standardSkillRoots({ cwd: '/p', home: '/h', env: { SKILLS_ROOT: ' : ' } })).toHaveLength(5);
  });
});

describe('splitSkillsRootList', () => {
  it('keeps URLs whole, ports included', () => {
    expect(splitSkillsRootList('/a:https://example.com:8443/skills.zip:/b:file:///c/d::http://h/x')).toEqual([
      '/a',
      'https://example.com:8443/skills.zip',
      '/b',
      'file:///c/d',
      'http://h/x',
    ]);
  });

  it('does not take a path entry after a URL for a port', () => {
    expect(splitSkillsRootList('https://h/x.zip:8080')).toEqual(['https://h/x.zip', '8080']);
  });
});
