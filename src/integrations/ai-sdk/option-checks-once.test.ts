import { describe, expect, it } from 'vitest';
import { optionSchemaRuns } from '../../config/validate-options.js';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { createRuntime } from '../../runtime/create-runtime.js';
import { createSkillAgent } from './skill-agent.js';
import { createScriptedModel } from './testing/scripted-model.js';

const repository = createMemorySkillRepository([{ name: 'poetry', description: 'Write poems.', body: 'Haiku.' }]);

/** Schema runs during `build()`, and during its agent's first `run`. */
async function countSchemaRuns(build: () => ReturnType<typeof createSkillAgent>) {
  const before = optionSchemaRuns();
  const agent = build();
  const construction = optionSchemaRuns() - before;
  const beforeRun = optionSchemaRuns();
  for await (const _event of agent.run({ userId: 'u', sessionId: 's', message: 'hi' })) {
    // drained
  }
  const firstRun = optionSchemaRuns() - beforeRun;
  await agent.close();
  return { construction, firstRun };
}

describe('createSkillAgent checks its options once', () => {
  it('runs one schema at construction and none on the first run (knowledge only)', async () => {
    const { model } = createScriptedModel([{ text: 'ok' }]);
    expect(await countSchemaRuns(() => createSkillAgent({ model, repository, loadMode: 'session' }))).toEqual({
      construction: 1,
      firstRun: 0,
    });
  });

  it('runs one schema at construction and none on the first run (with a runtime, execution options and a catalog budget)', async () => {
    const { model } = createScriptedModel([{ text: 'ok' }]);
    const runtime = createRuntime({ kind: 'local' });
    expect(
      await countSchemaRuns(() =>
        createSkillAgent({
          model,
          repository,
          runtime,
          execution: { defaultTimeoutSeconds: 30 },
          catalog: { budget: { tokens: 500 } },
          skillSearch: 'over-budget',
        }),
      ),
    ).toEqual({ construction: 1, firstRun: 0 });
  });
});

describe('the one check refuses what the inner factories refused', () => {
  const { model } = createScriptedModel([]);
  const runtime = createRuntime({ kind: 'local' });
  const cases: Array<[string, Record<string, unknown>, string]> = [
    [
      'an execution option, by its path under execution',
      { runtime, execution: { defaultTimeoutSeconds: -1 } },
      'createSkillAgent: option "execution.defaultTimeoutSeconds" must be a positive number; got -1',
    ],
    [
      'execution timeouts that contradict each other',
      { runtime, execution: { defaultTimeoutSeconds: 600, maxTimeoutSeconds: 60 } },
      'createSkillAgent: option "execution.defaultTimeoutSeconds" is larger than maxTimeoutSeconds (60)',
    ],
    [
      'a runtime without file access',
      { runtime: { run: () => undefined, guestPath: () => '/' } },
      'createSkillAgent: option "runtime" must be a WorkspaceRuntime (createRuntime()); got an object',
    ],
    [
      'an unknown skillSearch',
      { skillSearch: 'sometimes' },
      'createSkillAgent: option "skillSearch" must be one of "over-budget", "always", "never"; got "sometimes"',
    ],
    [
      'an unknown unmetRequirements',
      { runtime, unmetRequirements: 'ignore' },
      'createSkillAgent: option "unmetRequirements" must be one of "mark", "hide"; got "ignore"',
    ],
    [
      'the full profile without anything to run scripts',
      { profile: 'full' },
      'createSkillTools: option "profile" "full" needs executionTools',
    ],
  ];
  for (const [what, options, message] of cases) {
    it(`refuses ${what}`, () => {
      expect(() => createSkillAgent({ model, repository, ...options } as never)).toThrow(message);
    });
  }
});
