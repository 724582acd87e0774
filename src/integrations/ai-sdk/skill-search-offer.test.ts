import { generateText, stepCountIs } from 'ai';
import { describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { createInMemoryStateView } from '../../state/in-memory-state-view.js';
import { createSkillCallContext } from './skill-call-context.js';
import { createSkillToolkit } from './skill-toolkit.js';
import { ai7StepInput } from './testing/prepare-step-input.js';
import { createScriptedModel } from './testing/scripted-model.js';

const definitions = Array.from({ length: 60 }, (_, index) => ({
  name: `chore-${String(index).padStart(2, '0')}`,
  description: `Handles chores of kind ${index}: reads the inputs, checks them and writes a report about them.`,
  body: 'Body.',
}));
definitions.push({ name: 'pdf-forms', description: 'Fill in PDF forms and extract their fields.', body: 'pypdf.' });
const repository = createMemorySkillRepository(definitions);

async function firstStep(options: Parameters<typeof createSkillToolkit>[0]) {
  const toolkit = createSkillToolkit(options);
  const context = createSkillCallContext({ sessionId: 's', state: createInMemoryStateView() });
  const result = await toolkit.prepareStep(
    ai7StepInput({
      stepNumber: 0,
      conversation: [{ role: 'user', content: 'fill in this form' }],
      context,
      skillToolNames: toolkit.skillToolNames,
    }),
  );
  const system = JSON.stringify(result?.instructions ?? result?.messages);
  return { toolkit, activeTools: result?.activeTools ?? [], system };
}

describe('skill_search in the AI SDK toolkit', () => {
  it('is active, and the catalog points to it, when the catalog budget shortens the catalog', async () => {
    const { toolkit, activeTools, system } = await firstStep({ repository, catalog: { budget: { tokens: 600 } } });
    expect(toolkit.skillToolNames).toContain('skill_search');
    expect(activeTools).toContain('skill_search');
    expect(system).toContain('call skill_search with words describing the task');
  });

  it('is registered but inactive, and unmentioned, when the catalog fits its budget', async () => {
    const { toolkit, activeTools, system } = await firstStep({ repository, catalog: { budget: { tokens: 100_000 } } });
    expect(toolkit.skillToolNames).toContain('skill_search');
    expect(activeTools).not.toContain('skill_search');
    expect(activeTools).toContain('skill_load');
    expect(system).not.toContain('skill_search');
  });

  it('is not registered without a budget or with skillSearch "never", and always active with "always"', async () => {
    expect(createSkillToolkit({ repository }).skillToolNames).not.toContain('skill_search');
    expect(
      createSkillToolkit({ repository, catalog: { budget: { tokens: 600 } }, skillSearch: 'never' }).skillToolNames,
    ).not.toContain('skill_search');
    const always = await firstStep({ repository, skillSearch: 'always' });
    expect(always.activeTools).toContain('skill_search');
    expect(always.system).toContain('skill_search finds skills');
    expect(() => createSkillToolkit({ repository, skillSearch: 'sometimes' as 'always' })).toThrow(/skillSearch/);
  });

  it('answers a model call through generateText with the matching skill', async () => {
    const toolkit = createSkillToolkit({ repository, catalog: { budget: { tokens: 600 } } });
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'skill_search', input: { query: 'fill a PDF form', limit: 2 } }] },
      { text: 'done' },
    ]);
    const context = createSkillCallContext({ sessionId: 's', state: createInMemoryStateView() });
    const result = await generateText({
      model,
      prompt: 'fill in this form',
      tools: toolkit.tools,
      prepareStep: toolkit.prepareStep,
      stopWhen: stepCountIs(3),
      ...toolkit.contextOptions(context),
    });
    expect(calls[0]?.tools?.map((tool) => tool.name)).toContain('skill_search');
    const output = result.steps[0]?.toolResults[0]?.output as { results: { name: string }[] };
    expect(output.results[0]?.name).toBe('pdf-forms');
  });
});
