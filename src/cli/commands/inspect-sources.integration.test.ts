// `skillbox inspect` over every kind of source `skillbox list` takes: a folder root whose skills a
// skills-lock.json governs (one still as installed, one edited since), and an MCP server started
// with --mcp. The command runs as a user runs it (main), and its page's data is read over HTTP.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { skillsCliComputedHash } from '../../repository/skill-digest.js';
import { createSkillTree, type SkillTree, skillMarkdown } from '../../repository/testing/skill-tree.js';
import { main } from '../main.js';

const repositoryRoot = resolve(import.meta.dirname, '../../..');
const examples = resolve(repositoryRoot, 'examples/skills');
const tsx = resolve(repositoryRoot, 'node_modules/.bin/tsx');
const serveEntry = resolve(repositoryRoot, 'src/integrations/mcp/testing/serve-from-cli.ts');
let tree: SkillTree | undefined;
afterEach(async () => {
  await tree?.remove();
  tree = undefined;
});

interface ShownSkill {
  name: string;
  source: { kind: string; label: string };
  lock?: { entry?: string; source?: string; matches: boolean; differences: string[] };
}

/** Starts `skillbox inspect` with `args`, hands its printed URL to `look`, then stops it as Ctrl-C would. */
async function withInspector(args: string[], look: (url: string) => Promise<void>): Promise<string> {
  let stdout = '';
  let stderr = '';
  const stop = new AbortController();
  let printed: (url: string) => void = () => undefined;
  const url = new Promise<string>((resolveUrl) => {
    printed = resolveUrl;
  });
  const io = {
    stdout: (text: string) => {
      stdout += text;
      const match = /skillbox inspector: (\S+)/.exec(stdout);
      if (match !== null) printed(match[1] as string);
    },
    stderr: (text: string) => void (stderr += text),
    cwd: repositoryRoot,
    env: { HOME: tree?.dir ?? '/nonexistent' },
    signal: stop.signal,
  };
  const running = main(['inspect', ...args], io);
  const failed = running.then((code) => {
    throw new Error(`skillbox inspect ended with ${code}: ${stderr}`);
  });
  try {
    await look(await Promise.race([url, failed]));
  } finally {
    stop.abort();
    await running;
  }
  return stderr;
}

async function skillsAt(url: string): Promise<ShownSkill[]> {
  const response = await fetch(new URL('/api/skills', url));
  expect(response.status).toBe(200);
  return ((await response.json()) as { skills: ShownSkill[] }).skills;
}

describe('skillbox inspect: sources and lock status', () => {
  it('names each skill source (folder root, MCP server) and says whether a locked folder is what was installed', async () => {
    const installed = skillMarkdown('installed-as-is', 'Installed and untouched.');
    tree = await createSkillTree({
      'project/.agents/skills/installed-as-is/SKILL.md': installed,
      'project/.agents/skills/edited-since/SKILL.md': skillMarkdown('edited-since', 'Edited after install.'),
      'project/.agents/skills/not-in-lock/SKILL.md': skillMarkdown('not-in-lock', 'Put there by hand.'),
    });
    const hash = (text: string) => skillsCliComputedHash([{ path: 'SKILL.md', bytes: Buffer.from(text) }]);
    await writeFile(
      tree.path('project/skills-lock.json'),
      JSON.stringify({
        version: 1,
        skills: {
          'installed-as-is': { source: 'acme/skills', sourceType: 'github', computedHash: hash(installed) },
          'edited-since': {
            source: 'acme/skills',
            sourceType: 'github',
            computedHash: hash(skillMarkdown('edited-since', 'As it was installed.')),
          },
        },
      }),
    );
    const root = tree.path('project/.agents/skills');
    const stderr = await withInspector(
      ['--root', root, '--mcp', `ex=${tsx} ${serveEntry} --root ${examples}`],
      async (url) => {
        const skills = new Map((await skillsAt(url)).map((skill) => [skill.name, skill]));
        expect(skills.get('installed-as-is')?.source.kind).toBe('folder');
        expect(skills.get('installed-as-is')?.lock).toMatchObject({
          entry: 'installed-as-is',
          source: 'acme/skills',
          matches: true,
          differences: [],
        });
        const edited = skills.get('edited-since')?.lock;
        expect(edited?.matches).toBe(false);
        expect(edited?.differences.join('\n')).toContain('computedHash');
        expect(skills.get('not-in-lock')?.lock?.matches).toBe(false);
        expect(skills.get('not-in-lock')?.lock?.entry).toBeUndefined();
        expect(skills.get('python-math')?.source).toEqual({ kind: 'mcp', label: 'ex' });
        expect(skills.get('python-math')?.lock).toBeUndefined();
        expect([...skills.keys()].sort()).toEqual([
          'edited-since',
          'file-ops',
          'installed-as-is',
          'not-in-lock',
          'python-math',
          'user-file-ops',
          'weather-tools',
        ]);
      },
    );
    expect(stderr).toContain('skillbox inspect: 4 skills from MCP server ex');
  }, 90_000);

  it('fails naming the MCP server when it cannot be started', async () => {
    let stderr = '';
    const code = await main(['inspect', '--root', examples, '--mcp', 'gone=/nonexistent/program'], {
      stdout: () => undefined,
      stderr: (text: string) => void (stderr += text),
      cwd: repositoryRoot,
      env: {},
    });
    expect(code).not.toBe(0);
    expect(stderr).toContain('MCP server "gone": cannot connect');
  }, 30_000);
});
