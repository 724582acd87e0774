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
