import { jsonSchema, type ModelMessage, type Tool, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../../config/config-error.js';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { createInMemoryStateView } from '../../state/in-memory-state-view.js';
import { loadedKey, loadedOrderKey, toolsKey } from '../../state/state-keys.js';
import { createSkillCallContext, type SkillCallContext, type StateChange } from './skill-call-context.js';
import { createSkillPrepareStep, type SkillPrepareStepOptions } from './skill-prepare-step.js';
import { ai6StepInput, ai7StepInput } from './testing/prepare-step-input.js';

const repository = createMemorySkillRepository([
  {
    name: 'weather-tools',
    description: 'Weather queries.',
    body: 'Use get_current_weather for today.',
    tools: ['get_current_weather', 'get_weather_forecast'],
    files: { 'docs/units.md': 'Celsius.' },
  },
  {
    name: 'notes',
    description: 'Take notes.',
    body: 'Write notes tersely.',
    allowedTools: ['save_note'],
    tools: ['save_note'],
  },
  { name: 'plain', description: 'No tools.', body: 'Plain body.' },
]);

function poolTool(name: string): Tool {
  return tool({
    description: `${name} tool`,
    inputSchema: jsonSchema({ type: 'object', properties: {} }),
    execute: async () => name,
  });
}
const toolPool = Object.fromEntries(
  ['get_current_weather', 'get_weather_forecast', 'save_note', 'ask_name_information'].map((name) => [
    name,
    poolTool(name),
  ]),
);
const skillToolNames = ['skill_load', 'skill_select_docs', 'skill_select_tools', 'skill_run'];

function setup(options: Partial<SkillPrepareStepOptions> = {}, initial: Record<string, string> = {}) {
  const state = createInMemoryStateView(initial);
  const changes: StateChange[] = [];
  const context: SkillCallContext = createSkillCallContext({
    sessionId: 's',
    state,
    onStateChange: (change) => changes.push(change),
  });
  const prepareStep = createSkillPrepareStep({
    repository,
    skillToolNames,
    toolPool,
    instructions: 'You are terse.',
    ...options,
  });
  const run = (stepNumber: number, messages: ModelMessage[]) =>
    prepareStep(ai7StepInput({ stepNumber, conversation: messages, context, skillToolNames }));
  return { state, changes, context, run };
}

const user: ModelMessage = { role: 'user', content: 'weather in Beijing?' };
const loadCall: ModelMessage = {
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'skill_load', input: { skill: 'weather-tools' } }],
};
const loadResult: ModelMessage = {
  role: 'tool',
  content: [
    {
      type: 'tool-result',
      toolCallId: 'c1',
      toolName: 'skill_load',
      output: { type: 'text', value: 'loaded: weather-tools' },
    },
  ],
};
const loadedWeather = {
  [loadedKey('assistant', 'weather-tools')]: '1',
  [loadedOrderKey('assistant')]: '["weather-tools"]',
};

describe('createSkillPrepareStep', () => {
  it('before any load: instructions plus catalog as system, only the skill tools active, messages untouched', async () => {
    const { run } = setup();
    const result = await run(0, [user]);
    const system = result?.instructions as Array<{ content: string }>;
    expect(system).toHaveLength(1);
    expect(system[0]?.content.startsWith('You are terse.\n\n')).toBe(true);
    expect(system[0]?.content).toContain('- weather-tools: Weather queries.');
    expect(result?.messages).toEqual([user]);
    expect(result?.activeTools).toEqual(skillToolNames);
  });

  it("tool-result mode puts the body into the skill_load result and activates the skill's pool tools; the input is not changed", async () => {
    const { run } = setup({ loadMode: 'session' }, loadedWeather);
    const messages = [user, loadCall, loadResult];
    const snapshot = JSON.stringify(messages);
    const result = await run(1, messages);
    const toolMessage = result?.messages?.[2] as { content: Array<{ output: { value: string } }> };
    expect(toolMessage.content[0]?.output.value).toMatch(
      /^\[Loaded\] weather-tools\n\nUse get_current_weather for today\./,
    );
    expect((result?.instructions as Array<{ content: string }>)[0]?.content).not.toContain('[Loaded]');
    expect(result?.activeTools).toEqual([...skillToolNames, 'get_current_weather', 'get_weather_forecast']);
    expect(JSON.stringify(messages)).toBe(snapshot);
  });

  it('system mode appends the body to the system message; without a matching tool result tool-result mode falls back to a system message', async () => {
    const systemMode = setup({ loadMode: 'session', materialize: 'system' }, loadedWeather);
    const bySystem = await systemMode.run(1, [user]);
    expect((bySystem?.instructions as Array<{ content: string }>)[0]?.content).toContain('[Loaded] weather-tools');

    const fallback = setup({ loadMode: 'session' }, loadedWeather);
    const byFallback = await fallback.run(1, [user]);
    const system = byFallback?.instructions as Array<{ content: string }>;
    expect(system).toHaveLength(2);
    expect(system[1]?.content).toMatch(/^Loaded skill context:\n\n\[Loaded\] weather-tools/);
  });

  it('turn mode unloads the previous turn at step 0 only, and reports it as a turn change', async () => {
    const { run, state, changes } = setup({}, loadedWeather);
    await run(0, [user]);
    expect(state.get(loadedKey('assistant', 'weather-tools'))).toBeUndefined();
    expect(changes).toEqual([
      {
        source: 'turn',
        delta: { [loadedKey('assistant', 'weather-tools')]: null, [loadedOrderKey('assistant')]: null },
      },
    ]);
    state.set(loadedKey('assistant', 'plain'), '1');
    await run(1, [user]);
    expect(state.get(loadedKey('assistant', 'plain'))).toBe('1');
  });

  it('once mode shows loaded skills in one request and then unloads them', async () => {
    const { run, state } = setup({ loadMode: 'once', materialize: 'system' }, loadedWeather);
    const result = await run(1, [user]);
    expect((result?.instructions as Array<{ content: string }>)[0]?.content).toContain('[Loaded] weather-tools');
    expect(result?.activeTools).toContain('get_current_weather');
    expect(state.get(loadedKey('assistant', 'weather-tools'))).toBeUndefined();
  });

  it('applies declared loads atomically at step 0, and a bad batch throws with nothing written', async () => {
    const good = setup({ loadMode: 'session' });
    good.context.skillLoads = [{ name: 'weather-tools', docs: ['docs/units.md'] }];
    const result = await good.run(0, [user]);
    expect(result?.activeTools).toContain('get_weather_forecast');
    expect((result?.instructions as Array<{ content: string }>)[1]?.content).toContain('[Doc] docs/units.md');

    const bad = setup({}, loadedWeather);
    bad.context.skillLoads = [{ name: 'plain' }, { name: 'missing-skill' }];
    await expect(bad.run(0, [user])).rejects.toThrow(/missing-skill/);
    expect(bad.state.get(loadedKey('assistant', 'weather-tools'))).toBe('1');
    expect(bad.changes).toEqual([]);
  });

  it('narrows to skill_select_tools and evicts beyond maxLoadedSkills', async () => {
    const narrowed = setup(
      { loadMode: 'session' },
      { ...loadedWeather, [toolsKey('assistant', 'weather-tools')]: '["get_weather_forecast"]' },
    );
    expect((await narrowed.run(1, [user]))?.activeTools).toEqual([...skillToolNames, 'get_weather_forecast']);

    const evicting = setup(
      { loadMode: 'session', maxLoadedSkills: 1 },
      {
        ...loadedWeather,
        [loadedKey('assistant', 'plain')]: '1',
        [loadedOrderKey('assistant')]: '["weather-tools","plain"]',
      },
    );
    const result = await evicting.run(1, [user]);
    expect(result?.activeTools).toEqual(skillToolNames);
    expect(evicting.state.get(loadedKey('assistant', 'weather-tools'))).toBeUndefined();
    expect(evicting.state.get(loadedKey('assistant', 'plain'))).toBe('1');
  });

  it('enforces allowed-tools of loaded skills only when asked', async () => {
    const loaded = { ...loadedWeather, [loadedKey('assistant', 'notes')]: '1' };
    const open = setup({ loadMode: 'session' }, loaded);
    expect((await open.run(1, [user]))?.activeTools).toEqual([
      ...skillToolNames,
      'get_current_weather',
      'get_weather_forecast',
      'save_note',
    ]);
    const enforced = setup({ loadMode: 'session', enforceAllowedTools: true }, loaded);
    expect((await enforced.run(1, [user]))?.activeTools).toEqual([
      'skill_load',
      'skill_select_docs',
      'skill_select_tools',
      'save_note',
    ]);
  });

  it("says a tool is held back by a loaded skill's allowed-tools, not that a loaded skill should be loaded", async () => {
    const loaded = { ...loadedWeather, [loadedKey('assistant', 'notes')]: '1' };
    const { run } = setup({ loadMode: 'session', enforceAllowedTools: true }, loaded);
    const refusedCall = (id: string, toolName: string) => ({
      type: 'tool-result' as const,
      toolCallId: id,
      toolName,
      output: {
        type: 'error-text' as const,
        value: `Model tried to call unavailable tool '${toolName}'. Available tools: skill_load.`,
      },
    });
    const history: ModelMessage[] = [
      user,
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'w1', toolName: 'get_weather_forecast', input: {} },
          { type: 'tool-call', toolCallId: 'w2', toolName: 'skill_run', input: {} },
        ],
      },
      { role: 'tool', content: [refusedCall('w1', 'get_weather_forecast'), refusedCall('w2', 'skill_run')] },
    ];
    const result = await run(1, history);
    const texts = (result?.messages?.[2] as { content: Array<{ output: { value: string } }> }).content.map(
      (part) => part.output.value,
    );
    const expected = (tool: string) =>
      `tool "${tool}" is not available: the loaded skill "notes" restricts the tools to its allowed-tools, which do not include it. ` +
      'Loading or selecting skills will not make it available while that skill is loaded; continue with the tools you have.';
    expect(texts).toEqual([expected('get_weather_forecast'), expected('skill_run')]);
    for (const text of texts) expect(text).not.toContain('skill_load');
  });

  it('explains calls to pool tools that were not active, the same way every time', async () => {
    const { run } = setup();
    const history: ModelMessage[] = [
      user,
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c9', toolName: 'ask_name_information', input: {} },
          { type: 'tool-call', toolCallId: 'c10', toolName: 'get_weather_forecast', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c9',
            toolName: 'ask_name_information',
            output: {
              type: 'error-text',
              value: "Model tried to call unavailable tool 'ask_name_information'. Available tools: skill_load.",
            },
          },
          {
            type: 'tool-result',
            toolCallId: 'c10',
            toolName: 'get_weather_forecast',
            output: {
              type: 'error-text',
              value: "Model tried to call unavailable tool 'get_weather_forecast'. Available tools: skill_load.",
            },
          },
        ],
      },
    ];
    const first = await run(1, history);
    const second = await run(2, history);
    const results = (first?.messages?.[2] as { content: Array<{ output: { value: string } }> }).content.map(
      (part) => part.output.value,
    );
    expect(results[0]).toMatch(/^tool "ask_name_information" is not available: no skill lists it/);
    expect(results[1]).toContain('("weather-tools")');
    expect(JSON.stringify(second?.messages)).toBe(JSON.stringify(first?.messages));
  });

  it('validates options by field; a call without a context gets its own on its first step, a later step needs one', async () => {
    expect(() => createSkillPrepareStep({ repository, skillToolNames, materialize: 'inline' as never })).toThrow(
      SkillboxConfigError,
    );
    expect(() => createSkillPrepareStep({ repository, skillToolNames, loadMode: 'forever' as never })).toThrow(
      /loadMode/,
    );
    expect(() =>
      createSkillPrepareStep({ repository, skillToolNames, toolPool: { skill_load: poolTool('x') } }),
    ).toThrow(/toolPool/);
    const prepareStep = createSkillPrepareStep({ repository, skillToolNames });
    const first = (await prepareStep(
      ai7StepInput({ stepNumber: 0, conversation: [user], context: undefined, skillToolNames }),
    )) as { toolsContext?: Record<string, { sessionId: string }>; experimental_context?: { sessionId: string } };
    const made = first.experimental_context;
    expect(made?.sessionId).toMatch(/^call-/);
    // Every skill tool gets the same context, so a skill_load and the next step share state.
    for (const name of skillToolNames) expect(first.toolsContext?.[name]).toBe(made);
    const again = (await prepareStep(
      ai7StepInput({ stepNumber: 0, conversation: [user], context: undefined, skillToolNames }),
    )) as { experimental_context?: { sessionId: string } };
    expect(again.experimental_context?.sessionId).not.toBe(made?.sessionId);
    await expect(
      prepareStep(ai7StepInput({ stepNumber: 1, conversation: [user], context: undefined, skillToolNames })),
    ).rejects.toThrow(/toolsContext/);
  });
});

describe('skills that say they are not for the model', () => {
  const withHidden = createMemorySkillRepository([
    { name: 'weather-tools', description: 'Weather queries.', body: 'Use the tools.', tools: ['get_current_weather'] },
    {
      name: 'release-helper',
      description: 'Cuts a release.',
      body: 'Internal steps.',
      tools: ['get_current_weather'],
      disableModelInvocation: true,
    },
  ]);
  const call: ModelMessage = {
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'p1', toolName: 'get_current_weather', input: {} }],
  };
  const refused: ModelMessage = {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'p1',
        toolName: 'get_current_weather',
        output: {
          type: 'error-text',
          value: "Model tried to call unavailable tool 'get_current_weather'. Available tools: skill_load.",
        },
      },
    ],
  };

  async function firstRequest(includeNonModelInvocable: boolean | undefined) {
    const state = createInMemoryStateView();
    const context = createSkillCallContext({ sessionId: 's', state });
    const prepareStep = createSkillPrepareStep({
      repository: withHidden,
      skillToolNames,
      toolPool,
      ...(includeNonModelInvocable === undefined ? {} : { includeNonModelInvocable }),
    });
    const result = await prepareStep(
      ai7StepInput({ stepNumber: 1, conversation: [user, call, refused], context, skillToolNames }),
    );
    return {
      system: (result?.instructions as Array<{ content: string }>).map((message) => message.content).join('\n'),
      messages: JSON.stringify(result?.messages),
    };
  }

  it('are left out of the catalog and of the unavailable-tool explanation by default, and offered with includeNonModelInvocable', async () => {
    const hidden = await firstRequest(undefined);
    expect(hidden.system).toContain('- weather-tools: Weather queries.');
    expect(hidden.system).not.toContain('release-helper');
    expect(hidden.messages).toContain('weather-tools');
    expect(hidden.messages).not.toContain('release-helper');
    const offered = await firstRequest(true);
    expect(offered.system).toContain('- release-helper: Cuts a release.');
    expect(offered.messages).toContain('release-helper');
  });
});

describe("the caller's system text", () => {
  const systemTexts = (messages: readonly ModelMessage[] | undefined) =>
    (messages ?? []).filter((message) => message.role === 'system').map((message) => message.content as string);

  it('on ai 7 is kept first in `instructions`, then the toolkit instructions with the catalog, and is not repeated on the next step', async () => {
    const state = createInMemoryStateView();
    const context = createSkillCallContext({ sessionId: 's', state });
    const prepareStep = createSkillPrepareStep({
      repository,
      skillToolNames,
      toolPool,
      instructions: 'You are terse.',
    });
    for (const stepNumber of [0, 1]) {
      const result = await prepareStep(
        ai7StepInput({
          stepNumber,
          conversation: [user],
          context,
          skillToolNames,
          initialInstructions: 'You work for ACME.',
        }),
      );
      const texts = systemTexts(result?.instructions as ModelMessage[]);
      expect(texts).toHaveLength(2);
      expect(texts[0]).toBe('You work for ACME.');
      expect(texts[1]?.startsWith('You are terse.\n\n')).toBe(true);
      expect(texts[1]).toContain('- weather-tools: Weather queries.');
      expect(result?.messages).toEqual([user]);
    }
  });

  it('on ai 6 is left in `system` (not returned, so not replaced) and ours follows as leading system messages; system messages at the head of `messages` stay first', async () => {
    const state = createInMemoryStateView();
    const context = createSkillCallContext({ sessionId: 's', state });
    const prepareStep = createSkillPrepareStep({
      repository,
      skillToolNames,
      toolPool,
      instructions: 'You are terse.',
    });
    const plain = await prepareStep(ai6StepInput({ stepNumber: 0, messages: [user], context }));
    expect(plain).not.toHaveProperty('system');
    expect(plain).not.toHaveProperty('instructions');
    expect(plain?.messages?.[0]).toMatchObject({ role: 'system' });
    expect(systemTexts(plain?.messages)[0]?.startsWith('You are terse.\n\n')).toBe(true);
    expect(plain?.messages?.at(-1)).toEqual(user);
    const withOwn = await prepareStep(
      ai6StepInput({ stepNumber: 0, messages: [{ role: 'system', content: 'You work for ACME.' }, user], context }),
    );
    const texts = systemTexts(withOwn?.messages);
    expect(texts[0]).toBe('You work for ACME.');
    expect(texts[1]).toContain('- weather-tools: Weather queries.');
  });

  it("on ai 7 builds each request from the caller's messages and the responses, not from what the last prepareStep returned", async () => {
    const state = createInMemoryStateView();
    const context = createSkillCallContext({ sessionId: 's', state });
    const prepareStep = createSkillPrepareStep({ repository, skillToolNames, toolPool });
    const input = ai7StepInput({ stepNumber: 1, conversation: [user], context, skillToolNames });
    // ai 7 hands back the previous override as `messages`: here a stale request with a skill body in it.
    const stale = { ...input, messages: [{ role: 'user', content: '[Loaded] stale body' }] } as typeof input;
    const result = await prepareStep(stale);
    expect(JSON.stringify(result?.messages)).not.toContain('stale body');
    expect(result?.messages).toEqual([user]);
  });
});
