import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../../config/config-error.js';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { createSkillMcpServer, defaultMcpCatalogBudget, type SkillMcpServerOptions } from './skill-mcp-server.js';

const examples = resolve(import.meta.dirname, '../../../examples/skills');
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function connect(options: Partial<SkillMcpServerOptions> = {}) {
  const repository = await FsSkillRepository.open({ roots: [examples] });
  const logs: string[] = [];
  const served = await createSkillMcpServer({ repository, log: (line) => logs.push(line), ...options });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await served.server.connect(serverTransport);
  await client.connect(clientTransport);
  closers.push(async () => {
    await client.close();
    await served.server.close();
  });
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { client, served, call, logs };
}

function text(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

describe('createSkillMcpServer over a real MCP client', () => {
  it('lists the knowledge tools with object input schemas and puts the catalog in the instructions and in skill_load', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'skill_load',
      'skill_list_docs',
      'skill_select_docs',
      'skill_read',
    ]);
    const load = tools.find((tool) => tool.name === 'skill_load')!;
    expect(load.inputSchema.type).toBe('object');
    expect(load.inputSchema.required).toEqual(['skill']);
    expect(load.description).toContain('- python-math: Small Python utilities');
    expect(load.description).not.toContain('next step');
    const instructions = client.getInstructions() ?? '';
    expect(instructions).toMatch(/^Available skills:/);
    for (const name of ['file-ops', 'python-math', 'user-file-ops', 'weather-tools'])
      expect(instructions).toContain(`- ${name}: `);
    expect(instructions).toContain('call skill_load');
    expect(instructions).not.toContain('skill_run');
  });

  it('answers skill_list with every skill when the profile names it', async () => {
    const { call } = await connect({ profile: ['skill_list', 'skill_load'] });
    const result = await call('skill_list', {});
    expect(result.isError).toBeFalsy();
    const listed = JSON.parse(text(result)) as string[];
    expect([...listed].sort()).toEqual(['file-ops', 'python-math', 'user-file-ops', 'weather-tools']);
  });

  it('skill_load returns the body itself and the docs named, and records the load in the connection state', async () => {
    const { call, served } = await connect();
    const result = await call('skill_load', { skill: 'python-math' });
    expect(result.isError).toBeFalsy();
    const content = text(result);
    expect(content.startsWith('[Loaded] python-math\n\n# Python math')).toBe(true);
    expect(content).toContain('python3 scripts/fib.py 10 > out/fib.txt');
    expect(content).toContain('Docs loaded: none');
    expect(content).not.toContain('loaded: python-math');
    expect(served.state.keys().some((key) => key.includes('python-math'))).toBe(true);

    const withDoc = text(await call('skill_load', { skill: 'python-math', docs: ['docs/usage.md'] }));
    expect(withDoc).toContain('Docs loaded: docs/usage.md');
    expect(withDoc).toContain('[Doc] docs/usage.md');
  });

  it('skill_select_docs returns the selection and the docs, without repeating the body', async () => {
    const { call } = await connect();
    await call('skill_load', { skill: 'python-math' });
    const result = await call('skill_select_docs', { skill: 'python-math', docs: ['docs/usage.md'] });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({
      skill: 'python-math',
      selected_docs: ['docs/usage.md'],
    });
    const rendered = (result.content[1] as { text: string }).text;
    expect(rendered).toContain('[Doc] docs/usage.md');
    expect(rendered).not.toContain('# Python math');
  });

  it('an unknown skill is an isError result with the message, and changes no state', async () => {
    const { call, served, logs } = await connect();
    const result = await call('skill_load', { skill: 'no-such-skill' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/no-such-skill/);
    expect(text(result)).toMatch(/python-math/);
    expect(served.state.keys()).toEqual([]);
    expect(logs).toEqual([]);
  });

  it('input that does not match the schema is an isError result naming the field, and changes no state', async () => {
    const { call, served } = await connect();
    const result = await call('skill_load', { skill: 'python-math', docs: 'docs/usage.md' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/docs/);
    expect(served.state.keys()).toEqual([]);
  });

  it('records every load of calls sent together, each on top of the one before', async () => {
    const { call, served } = await connect();
    const results = await Promise.all(
      ['python-math', 'file-ops', 'weather-tools'].map((skill) => call('skill_load', { skill })),
    );
    expect(results.map((result) => result.isError ?? false)).toEqual([false, false, false]);
    const { readLoadedSkills } = await import('../../disclosure/loaded-skills.js');
    expect(readLoadedSkills(served.state, served.agentName).map((skill) => skill.name)).toEqual([
      'python-math',
      'file-ops',
      'weather-tools',
    ]);
  });

  it('skill_read returns a doc of the skill', async () => {
    const { call } = await connect();
    const result = await call('skill_read', { skill: 'python-math', path: 'docs/usage.md' });
    expect(result.isError).toBeFalsy();
    const { readFile } = await import('node:fs/promises');
    const doc = await readFile(resolve(examples, 'python-math/docs/usage.md'), 'utf8');
    expect(text(result)).toContain(doc.trim().split('\n')[0]!);
  });

  it('gives each server its own state: a load on one connection is not seen by another', async () => {
    const first = await connect();
    const second = await connect();
    await first.call('skill_load', { skill: 'python-math' });
    expect(first.served.state.keys().length).toBeGreaterThan(0);
    expect(second.served.state.keys()).toEqual([]);
  });

  it('keeps the catalog within catalogBudget, in the instructions and in skill_load', async () => {
    // Without skill_search: its pointer alone would not fit beside four names in 200 tokens
    // (skill-mcp-search.test.ts covers the catalog with it).
    const { client, served } = await connect({ catalogBudget: { tokens: 200 }, skillSearch: 'never' });
    const { countTokens } = await import('../../disclosure/token-counter.js');
    expect(countTokens(served.instructions)).toBeLessThanOrEqual(200);
    expect(served.instructions).toContain('python-math');
    // Unbudgeted, the four example skills take more: the budget did shorten something.
    const unbudgeted = await connect();
    expect(countTokens(unbudgeted.served.instructions)).toBeGreaterThan(200);
    const load = (await client.listTools()).tools.find((tool) => tool.name === 'skill_load')!;
    expect(load.description).toContain(served.instructions);
    // The model is told the list is not complete, within the same budget.
    expect(served.instructions).toContain('Note: this skill list was shortened to fit 200 tokens');
    expect(unbudgeted.served.instructions).not.toContain('shortened');
  });

  it('sets a default catalog budget, said in the catalog, so a large folder is not sent in full twice', async () => {
    const { countTokens } = await import('../../disclosure/token-counter.js');
    const { MemorySkillRepository } = await import('../../repository/memory-skill-repository.js');
    // 300 skills with 300-character descriptions: about 25,000 tokens unbudgeted.
    const repository = new MemorySkillRepository(
      Array.from({ length: 300 }, (_, index) => ({
        name: `skill-${String(index).padStart(3, '0')}`,
        description:
          `Handles task number ${index} of the inventory: ${'reads the files, checks each record against the rules and writes a report of what it found. '.repeat(3)}`.trim(),
        body: 'Instructions.',
      })),
    );
    const served = await createSkillMcpServer({ repository });
    expect(countTokens(served.instructions)).toBeLessThanOrEqual(defaultMcpCatalogBudget.tokens!);
    expect(served.instructions).toContain('Note: this skill list was shortened to fit 4000 tokens');
    expect(served.instructions).toContain('skill-299');
    const unlimited = await createSkillMcpServer({ repository, catalogBudget: {} });
    expect(countTokens(unlimited.instructions)).toBeGreaterThan(20_000);
    expect(unlimited.instructions).not.toContain('shortened');
  });

  it('refuses bad options at construction, naming the field', async () => {
    const repository = await FsSkillRepository.open({ roots: [examples] });
    await expect(createSkillMcpServer({ repository: {} as never })).rejects.toThrow(SkillboxConfigError);
    await expect(createSkillMcpServer({ repository, agentName: ' ' })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      component: 'createSkillMcpServer',
      option: 'agentName',
      message: 'createSkillMcpServer: option "agentName" must be a non-empty string; got " "',
    });
    await expect(createSkillMcpServer({ repository, profile: 'full' })).rejects.toThrow(
      /^createSkillMcpServer: option "profile" "full" needs executionTools/,
    );
    await expect(createSkillMcpServer({ repository, catalogBudget: { tokens: -1 }, sessionId: '' })).rejects.toThrow(
      'createSkillMcpServer: 2 invalid options:\n' +
        '  - "sessionId" must be a non-empty string; got ""\n' +
        '  - "catalogBudget.tokens" must be a positive integer; got -1',
    );
  });
});
