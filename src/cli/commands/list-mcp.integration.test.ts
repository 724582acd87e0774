import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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

async function runList(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (text: string) => void (stdout += text),
    stderr: (text: string) => void (stderr += text),
    cwd: repositoryRoot,
    env: {},
  };
  const code = await main(['list', ...args], io);
  return { code, stdout, stderr };
}

describe('skillbox list --mcp', () => {
  it('lists the skills of skillbox mcp next to the local ones, the shared name qualified by the server label', async () => {
    tree = await createSkillTree({ 'python-math/SKILL.md': skillMarkdown('python-math', 'The local one.') });
    const result = await runList(['--root', tree.dir, '--mcp', `ex=${tsx} ${serveEntry} --root ${examples}`, '--json']);
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as { skills: Array<{ name: string; root: string; docs: string[] }> };
    expect(output.skills.map((skill) => [skill.name, skill.root])).toEqual([
      ['ex:python-math', 'mcp:ex'],
      ['file-ops', 'mcp:ex'],
      ['python-math', tree.dir],
      ['user-file-ops', 'mcp:ex'],
      ['weather-tools', 'mcp:ex'],
    ]);
    expect(output.skills.find((skill) => skill.name === 'ex:python-math')?.docs).toEqual(['docs/usage.md']);
    expect(result.stderr).toContain(
      'skill name "python-math" is used by more than one origin; offered as "ex:python-math"',
    );
    expect(result.stderr).toContain('skillbox list: 4 skills from MCP server ex');
  }, 60_000);

  it('fails naming the server when it cannot be started', async () => {
    const result = await runList(['--root', examples, '--mcp', 'gone=/nonexistent/program']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('MCP server "gone": cannot connect');
  }, 30_000);
});
