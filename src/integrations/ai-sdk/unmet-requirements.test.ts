import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { LocalRuntime } from '../../runtime/local-runtime.js';
import { createInMemoryStateView } from '../../state/in-memory-state-view.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';
import { createSkillAgent } from './skill-agent.js';
import { createSkillCallContext } from './skill-call-context.js';
import { createSkillToolkit, type SkillToolkitOptions } from './skill-toolkit.js';
import { ai7StepInput } from './testing/prepare-step-input.js';
import { createScriptedModel } from './testing/scripted-model.js';

const temporary = mkdtempSync(join(tmpdir(), 'skillbox-unmet-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

const repository = createMemorySkillRepository([
  { name: 'plain', description: 'Needs nothing.', body: 'x' },
  {
    name: 'transcode',
    description: 'Transcode videos.',
    body: 'Run skillbox-missing-transcoder.',
    metadata: { requires: { bins: ['skillbox-missing-transcoder', 'sh'], env: ['TRANSCODE_KEY'] } },
  },
]);

async function catalogOf(options: Partial<SkillToolkitOptions>) {
  const workspaces = createWorkspaceManager({ runtime: new LocalRuntime(), repository, baseDir: temporary });
  const toolkit = createSkillToolkit({ repository, workspaces, ...options });
  const context = createSkillCallContext({ sessionId: 's', state: createInMemoryStateView() });
  const result = await toolkit.prepareStep(
    ai7StepInput({
      stepNumber: 0,
      conversation: [{ role: 'user', content: 'hi' }],
      context,
      skillToolNames: toolkit.skillToolNames,
    }),
  );
  return { toolkit, context, system: JSON.stringify(result?.instructions ?? result?.messages) };
}

describe('skills whose requirements are not met where commands run', () => {
  it('are marked in the catalog with what is missing (the default)', async () => {
    const { system } = await catalogOf({});
    expect(system).toContain('- plain: Needs nothing.');
    expect(system).toContain(
      '- transcode: Transcode videos. [Cannot run here: missing skillbox-missing-transcoder, TRANSCODE_KEY.]',
    );
  });

  it('are hidden from the catalog and the skill tools with unmetRequirements "hide"', async () => {
    const { system, toolkit, context } = await catalogOf({ unmetRequirements: 'hide' });
    expect(system).toContain('- plain: Needs nothing.');
    expect(system).not.toContain('transcode');
    const load = toolkit.tools.skill_load as { execute: (input: unknown, options: unknown) => Promise<unknown> };
    await expect(
      load.execute({ skill: 'transcode' }, { toolCallId: 'c1', messages: [], ...toolkit.contextOptions(context) }),
    ).rejects.toThrow(/unknown skill "transcode"/);
  });

  it('stay hidden while any need is unmet, even once the variable is passed', async () => {
    const { system } = await catalogOf({
      unmetRequirements: 'hide',
      execution: { allowHostEnv: ['TRANSCODE_KEY', 'PATH'], hostEnv: { TRANSCODE_KEY: 'k', PATH: '/usr/bin:/bin' } },
    });
    // Still hidden: the program is missing even though the key is now passed.
    expect(system).not.toContain('transcode');
  });
});

describe('createSkillAgent with a runtime', () => {
  // The agent builds its execution tools once for all its toolkits; the gate must come with them.
  const agentSystemPrompt = async (unmetRequirements?: 'mark' | 'hide') => {
    const scripted = createScriptedModel([{ text: 'ok' }]);
    const agent = createSkillAgent({
      model: scripted.model,
      repository,
      runtime: new LocalRuntime(),
      ...(unmetRequirements === undefined ? {} : { unmetRequirements }),
    });
    try {
      for await (const _ of agent.run({ userId: 'u', sessionId: 's', message: 'hi' }));
    } finally {
      await agent.close();
    }
    return JSON.stringify(scripted.calls[0]?.prompt);
  };

  it('marks a skill whose requirements are unmet, as the toolkit does', async () => {
    expect(await agentSystemPrompt()).toContain(
      'transcode: Transcode videos. [Cannot run here: missing skillbox-missing-transcoder, TRANSCODE_KEY.]',
    );
  });

  it('hides it with unmetRequirements "hide"', async () => {
    const prompt = await agentSystemPrompt('hide');
    expect(prompt).toContain('plain: Needs nothing.');
    expect(prompt).not.toContain('transcode');
  });
});
