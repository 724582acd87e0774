import { asSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../config/config-error.js';
import { applyDeclaredLoads } from '../disclosure/declared-loads.js';
import { materializeRequest } from '../disclosure/materialize-request.js';
import { createVisibleSkillToolkits } from '../integrations/ai-sdk/visible-skill-toolkits.js';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { createInMemoryStateView } from '../state/in-memory-state-view.js';
import { writeDelta } from '../state/state-delta.js';
import { createSkillTools } from './create-skill-tools.js';
import { SkillToolError } from './errors.js';
import type { ToolContext, ToolDefinition } from './types.js';

const repository = createMemorySkillRepository([
  { name: 'calc', description: 'math ops', body: 'Calc body' },
  {
    name: 'grill-me',
    description: 'Interview the user',
    body: 'Grill body',
    files: { 'QUESTIONS.md': 'why?' },
    disableModelInvocation: true,
  },
  {
    name: 'release',
    description: 'Internal release steps',
    body: 'Release body',
    metadata: { internal: true },
    tools: ['publish'],
  },
]);
const allTools = [
  'skill_list',
  'skill_load',
  'skill_list_docs',
  'skill_select_docs',
  'skill_read',
  'skill_list_tools',
  'skill_select_tools',
];

function setup(includeNonModelInvocable?: boolean) {
  const tools = createSkillTools({
    repository,
    profile: allTools,
    ...(includeNonModelInvocable === undefined ? {} : { includeNonModelInvocable }),
  });
  const state = createInMemoryStateView();
  const context: ToolContext = { sessionId: 's', agentName: 'agent', state };
  const call = async (name: string, input: unknown) =>
    (tools.find((tool) => tool.name === name) as ToolDefinition).execute(input, context);
  return { state, call };
}

const unknown = (name: string) => `unknown skill "${name}". Use one of the listed skills: calc.`;

describe('skills that are not model-invocable', () => {
  it('are not listed, and every tool answers for them as for an unknown skill, changing no state', async () => {
    const { state, call } = setup();
    expect(await call('skill_list', {})).toEqual(['calc']);
    const attempts: [string, Record<string, unknown>][] = [
      ['skill_load', { skill: 'grill-me' }],
      ['skill_read', { skill: 'grill-me' }],
      ['skill_read', { skill: 'grill-me', path: 'QUESTIONS.md' }],
      ['skill_list_docs', { skill: 'grill-me' }],
      ['skill_select_docs', { skill: 'grill-me', docs: ['QUESTIONS.md'] }],
      ['skill_load', { skill: 'release' }],
      ['skill_list_tools', { skill: 'release' }],
      ['skill_select_tools', { skill: 'release', tools: ['publish'] }],
    ];
    for (const [tool, input] of attempts) {
      const attempt = call(tool, input);
      await expect(attempt, tool).rejects.toThrow(SkillToolError);
      await expect(call(tool, input), tool).rejects.toThrow(unknown(input.skill as string));
    }
    // An unknown name lists only the skills the model is offered.
    await expect(call('skill_load', { skill: 'nope' })).rejects.toThrow(unknown('nope'));
    expect(state.keys()).toEqual([]);
  });

  it('can be loaded by the caller, and the model may then read and select in them', async () => {
    const { state, call } = setup();
    writeDelta(
      state,
      await applyDeclaredLoads(state, { agentName: 'agent', repository, loads: [{ name: 'grill-me' }] }),
    );
    const request = await materializeRequest({
      messages: [{ role: 'user', content: 'grill me' }],
      state,
      agentName: 'agent',
      repository,
    });
    expect(request[0]).toEqual({ role: 'system', content: '[Loaded] grill-me\n\nGrill body\n\nDocs loaded: none' });
    expect(await call('skill_read', { skill: 'grill-me', path: 'QUESTIONS.md' })).toBe('why?');
    expect(await call('skill_select_docs', { skill: 'grill-me', docs: ['QUESTIONS.md'] })).toEqual({
      skill: 'grill-me',
      mode: 'replace',
      selected_docs: ['QUESTIONS.md'],
      include_all_docs: false,
    });
    // Still not offered: the catalog and skill_list describe what the model may pick on its own.
    expect(await call('skill_list', {})).toEqual(['calc']);
    await expect(call('skill_read', { skill: 'release' })).rejects.toThrow(unknown('release'));
  });

  it('are offered like any other with includeNonModelInvocable', async () => {
    const { call } = setup(true);
    expect(await call('skill_list', {})).toEqual(['calc', 'grill-me', 'release']);
    expect(await call('skill_load', { skill: 'grill-me' })).toBe('loaded: grill-me');
    expect(await call('skill_list_tools', { skill: 'release' })).toEqual({
      skill: 'release',
      available_tools: ['publish'],
    });
    await expect(call('skill_load', { skill: 'nope' })).rejects.toThrow(
      'unknown skill "nope". Use one of the listed skills: calc, grill-me, release.',
    );
  });

  it('refuses the removed includeModelDisabled, naming the option to use', () => {
    expect(() => createSkillTools({ repository, includeModelDisabled: true } as never)).toThrow(
      'createSkillTools: option "includeModelDisabled" was removed in 0.1; use includeNonModelInvocable',
    );
  });

  it('refuses an includeNonModelInvocable that is not a boolean', () => {
    expect(() => createSkillTools({ repository, includeNonModelInvocable: 'yes' as never })).toThrow(
      SkillboxConfigError,
    );
    expect(() => createSkillTools({ repository, includeNonModelInvocable: 'yes' as never })).toThrow(
      'createSkillTools: option "includeNonModelInvocable" must be true or false; got "yes"',
    );
  });

  it('are not in the skill enum of the AI SDK toolkits', async () => {
    const toolkit = await createVisibleSkillToolkits({ repository }).forContext();
    const schema = (await asSchema(toolkit.tools.skill_load!.inputSchema).jsonSchema) as {
      properties: { skill: { enum?: string[] } };
    };
    expect(schema.properties.skill.enum).toEqual(['calc']);
  });
});
