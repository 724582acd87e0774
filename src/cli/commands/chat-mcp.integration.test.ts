import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../../test/support/scripted-openai-server.js';
import { createSkillTree, type SkillTree, skillMarkdown } from '../../repository/testing/skill-tree.js';
import { main } from '../main.js';

// `skillbox chat --mcp`: skills of a spawned `skillbox mcp` reach the agent through
// McpSkillRepository; the model is the scripted OpenAI-compatible server.
const repositoryRoot = resolve(import.meta.dirname, '../../..');
const examples = resolve(repositoryRoot, 'examples/skills');
const tsx = resolve(repositoryRoot, 'node_modules/.bin/tsx');
const serveEntry = resolve(repositoryRoot, 'src/integrations/mcp/testing/serve-from-cli.ts');
let server: ScriptedOpenAiServer | undefined;
let home: string;
let tree: SkillTree;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'skillbox-chat-mcp-'));
  tree = await createSkillTree({ 'notes/SKILL.md': skillMarkdown('notes', 'A local skill') });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(home, { recursive: true, force: true });
  await tree.remove();
});

describe('skillbox chat --mcp', () => {
  it('offers the server skills in the catalog, loads one and runs its script from the verified bytes', async () => {
    server = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'skill_load', arguments: { skill: 'python-math' } }] },
      { toolCalls: [{ name: 'skill_run', arguments: { skill: 'python-math', command: 'python3 scripts/fib.py 10' } }] },
      { text: 'Done.' },
    ]);
    let stdout = '';
    let stderr = '';
    const code = await main(
      ['chat', '--root', tree.dir, '--mcp', `ex=${tsx} ${serveEntry} --root ${examples}`, '--once', 'Fibonacci of 10?'],
      {
        stdout: (text) => void (stdout += text),
        stderr: (text) => void (stderr += text),
        cwd: home,
        env: {
          HOME: home,
          USER: 'tester',
          OPENAI_BASE_URL: server.baseUrl,
          OPENAI_API_KEY: 'sk-test',
          SKILLBOX_MODEL: 'scripted-model',
        },
      },
    );
    expect(stderr).not.toContain('failed');
    expect(code).toBe(0);
    expect(stdout).toBe('Done.\n');
    expect(stderr).toContain('skillbox chat: 4 skills from MCP server ex');
    const system = server.requests[0]?.body.messages[0] as { content: string };
    expect(system.content).toContain('- python-math: Small Python utilities');
    expect(system.content).toContain('- notes: A local skill');
    expect(stderr).toContain('· skill_load {"skill":"python-math"} → loaded: python-math\n');
    expect(stderr).toMatch(/· skill_run \{"skill":"python-math",.*→ exit 0/);
  }, 90_000);
});
