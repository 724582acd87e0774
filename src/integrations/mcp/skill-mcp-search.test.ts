import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { createSkillMcpServer, type SkillMcpServerOptions } from './skill-mcp-server.js';

const definitions = Array.from({ length: 60 }, (_, index) => ({
  name: `chore-${String(index).padStart(2, '0')}`,
  description: `Handles chores of kind ${index}: reads the inputs, checks them and writes a report about them.`,
  body: 'Body.',
}));
definitions.push({ name: 'pdf-forms', description: 'Fill in PDF forms and extract their fields.', body: 'pypdf.' });

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function connect(options: Partial<SkillMcpServerOptions>) {
  const served = await createSkillMcpServer({ repository: createMemorySkillRepository(definitions), ...options });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await served.server.connect(serverTransport);
  await client.connect(clientTransport);
  closers.push(async () => {
    await client.close();
    await served.server.close();
  });
  return client;
}

describe('skill_search over MCP', () => {
  it('is listed, and the instructions point to it, when the catalog is over its budget; a call finds the skill', async () => {
    const client = await connect({ catalogBudget: { tokens: 600 } });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('skill_search');
    // A search reads the catalog only: hosts may run it without asking.
    expect(tools.find((tool) => tool.name === 'skill_search')?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
    });
    expect(client.getInstructions()).toContain('call skill_search with words describing the task');
    expect(client.getInstructions()).toContain('Note: this skill list was shortened');
    const result = (await client.callTool({
      name: 'skill_search',
      arguments: { query: 'fill a PDF form', limit: 1 },
    })) as CallToolResult;
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    expect(JSON.parse(text).results[0].name).toBe('pdf-forms');
  });

  it('is not listed when the catalog fits, or with skillSearch "never"; "always" lists it anyway', async () => {
    const fits = await connect({ catalogBudget: {} });
    expect((await fits.listTools()).tools.map((tool) => tool.name)).not.toContain('skill_search');
    expect(fits.getInstructions()).not.toContain('skill_search');
    const never = await connect({ catalogBudget: { tokens: 600 }, skillSearch: 'never' });
    expect((await never.listTools()).tools.map((tool) => tool.name)).not.toContain('skill_search');
    const always = await connect({ catalogBudget: {}, skillSearch: 'always' });
    expect((await always.listTools()).tools.map((tool) => tool.name)).toContain('skill_search');
  });
});
