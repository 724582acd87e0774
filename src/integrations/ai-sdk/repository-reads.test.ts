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

describe('repository reads of one turn', () => {
  it('a three-step turn with a loaded skill reads the repository this often', async () => {
    const counting = createCountingRepository(
      await createFsSkillRepository({ roots: [path.join(temporary, 'skills')] }),
    );
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'poetry', docs: ['docs/usage.md'] }, id: 'l1' }] },
      { toolCalls: [{ name: 'count_syllables', input: { text: 'old silent pond' }, id: 'c1' }] },
      { text: 'An old silent pond' },
    ]);
    const agent = createSkillAgent({ model, repository: counting.repository, toolPool });
    counting.reset();
    const events = await drain(agent.run({ userId: 'u', sessionId: 's', message: 'a poem please' }));

    expect(events.at(-1)).toMatchObject({ type: 'done', steps: 3 });
    // The skill's content reached the second and third requests.
    expect(JSON.stringify(calls[1]?.prompt)).toContain('Use five, seven, five.');
    expect(JSON.stringify(calls[2]?.prompt)).toContain('Use five, seven, five.');
    // Before one snapshot per step: the toolkit's and the catalog's lists, skill_load's get, then a
    // get for tool selection and another for materialisation in each of the two later steps.
    expect(counting.counts).toEqual({ list: 2, get: 5, listFiles: 0, readFile: 2 });
  });
});
