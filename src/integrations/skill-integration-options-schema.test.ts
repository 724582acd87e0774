import { describe, expect, it } from 'vitest';
import { importOptionalPeer } from '../../test/support/optional-peer.js';
import { SkillboxConfigError } from '../config/config-error.js';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { createRuntime } from '../runtime/create-runtime.js';
import { createSkillAgent } from './ai-sdk/index.js';
import { createScriptedModel } from './ai-sdk/testing/scripted-model.js';

// The shared option checks reach every factory that composes them, each naming itself and the field.
const langchain = await importOptionalPeer('createSkillMiddleware option', () => import('./langchain/index.js'));
const openaiAgents = await importOptionalPeer('createAgentSkills option', () => import('./openai-agents/index.js'));

const repository = createMemorySkillRepository([{ name: 'notes', description: 'Take notes.', body: 'Be terse.' }]);
const factories: Array<{ name: string; create?: (options: Record<string, unknown>) => unknown }> = [
  {
    name: 'createSkillAgent',
    create: (options) => createSkillAgent({ model: createScriptedModel([]).model, repository, ...options }),
  },
  {
    name: 'createSkillMiddleware',
    ...(langchain && { create: (options) => langchain.createSkillMiddleware({ repository, ...options }) }),
  },
  {
    name: 'createAgentSkills',
    ...(openaiAgents && { create: (options) => openaiAgents.createAgentSkills({ repository, ...options }) }),
  },
];

function refusal(create: (options: Record<string, unknown>) => unknown, options: Record<string, unknown>) {
  try {
    create(options);
  } catch (error) {
    return error;
  }
  throw new Error(`accepted ${JSON.stringify(Object.keys(options))}`);
}

describe.each(factories)('$name checks the options every integration shares', ({ name, create }) => {
  it.skipIf(create === undefined)('names itself and each bad shared field', () => {
    const error = refusal(create!, { loadMode: 'forever', maxLoadedSkills: -1, runtime: {} });
    expect(error).toBeInstanceOf(SkillboxConfigError);
    const { component, problems } = error as SkillboxConfigError;
    expect(component).toBe(name);
    expect(problems).toEqual([
      { option: 'loadMode', problem: 'must be one of "turn", "once", "session"; got "forever"' },
      { option: 'maxLoadedSkills', problem: 'must be a positive integer (0 or undefined for no limit); got -1' },
      { option: 'runtime', problem: 'must be a WorkspaceRuntime (createRuntime()); got an object' },
    ]);
  });

  it.skipIf(create === undefined)('refuses execution options that cannot go together, naming the field', () => {
    const runtime = createRuntime({ kind: 'local' });
    expect(String(refusal(create!, { runtime, executionTools: [] }))).toContain(
      `${name}: option "executionTools" cannot be given with runtime or workspaces; give one or the other`,
    );
    expect(String(refusal(create!, { execution: { timeoutMs: 1000 } }))).toContain(
      `${name}: option "execution" needs a runtime or workspaces to run anything`,
    );
    expect(() => create!({ execution: { timeoutMs: 1000 }, runtime })).not.toThrow();
  });
});
