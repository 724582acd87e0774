import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jsonSchema, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsSkillRepository } from '../../repository/fs-skill-repository.js';
import type { SkillAgentEvent } from './agent-events.js';
import { createSkillAgent } from './skill-agent.js';
import { createCountingRepository } from './testing/counting-repository.js';
import { createScriptedModel } from './testing/scripted-model.js';

let temporary: string;

beforeAll(async () => {
  temporary = await mkdtemp(path.join(tmpdir(), 'skillbox-repository-reads-'));
  const folder = path.join(temporary, 'skills', 'poetry');
  await mkdir(path.join(folder, 'docs'), { recursive: true });
  await writeFile(
    path.join(folder, 'SKILL.md'),
    '---\nname: poetry\ndescription: Write poems.\n---\n# Poetry\n\nCount syllables first.\n\nTools:\n- count_syllables\n',
  );
  await writeFile(path.join(folder, 'docs', 'usage.md'), 'Use five, seven, five.');
  const other = path.join(temporary, 'skills', 'recipes');
  await mkdir(other, { recursive: true });
  await writeFile(path.join(other, 'SKILL.md'), '---\nname: recipes\ndescription: Cook things.\n---\nCook.\n');
});

afterAll(async () => {
  await rm(temporary, { recursive: true, force: true });
});

const toolPool = {
  count_syllables: tool({
    description: 'Count syllables.',
    inputSchema: jsonSchema<{ text: string }>({ type: 'object', properties: { text: { type: 'string' } } }),
    execute: async ({ text }) => text.split(/\s+/).length,
  }),
};

async function drain(events: AsyncIterable<SkillAgentEvent>): Promise<SkillAgentEvent[]> {
  const result: SkillAgentEvent[] = [];
  for await (const event of events) result.push(event);
  return result;
}

async function countedTurn(loads: readonly string[]) {
  const counting = createCountingRepository(await createFsSkillRepository({ roots: [path.join(temporary, 'skills')] }));
  const { model, calls } = createScriptedModel([
    {
      toolCalls: loads.map((skill, index) => ({
        name: 'skill_load',
        input: skill === 'poetry' ? { skill, docs: ['docs/usage.md'] } : { skill },
        id: `l${index}`,
      })),
    },
    { toolCalls: [{ name: 'count_syllables', input: { text: 'old silent pond' }, id: 'c1' }] },
    { text: 'An old silent pond' },
  ]);
  const agent = createSkillAgent({ model, repository: counting.repository, toolPool });
  counting.reset();
  const events = await drain(agent.run({ userId: 'u', sessionId: 's', message: 'a poem please' }));
  return { counts: counting.counts, calls, events };
}

// A three-step turn: the model loads skills, calls a tool a loaded skill activated, then answers.
// Before one resolved snapshot per step, tool selection and materialisation each fetched every
// loaded skill in every step: { list: 2, get: 5, listFiles: 0, readFile: 2 } with one skill loaded.
describe('repository reads of one turn', () => {
  it('fetches a loaded skill once per step, not once for tool selection and again for the request', async () => {
    const { counts, calls, events } = await countedTurn(['poetry']);
    expect(events.at(-1)).toMatchObject({ type: 'done', steps: 3 });
    // The skill's doc reached the second and third requests, and its tool was active (it ran).
    expect(JSON.stringify(calls[1]?.prompt)).toContain('Use five, seven, five.');
    expect(JSON.stringify(calls[2]?.prompt)).toContain('Use five, seven, five.');
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'tool-result', toolName: 'count_syllables', output: 3 }),
    );
    // list: the toolkit's enum and the first step's catalog (later steps reuse it: same generation).
    // get: skill_load's own, then one per later step. readFile: the selected doc, once per later step.
    expect(counts).toEqual({ list: 2, get: 3, listFiles: 0, readFile: 2 });
  });

  it('fetches each of two loaded skills once per step', async () => {
    const { counts, events } = await countedTurn(['poetry', 'recipes']);
    expect(events.at(-1)).toMatchObject({ type: 'done', steps: 3 });
    // Two skill_load gets, then two gets in each of the two later steps (before: four per step).
    expect(counts).toEqual({ list: 2, get: 6, listFiles: 0, readFile: 2 });
  });
});
