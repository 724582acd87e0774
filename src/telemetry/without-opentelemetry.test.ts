import { describe, expect, it, vi } from 'vitest';
import { createSkillCallContext } from '../integrations/ai-sdk/skill-call-context.js';
import { createSkillToolkit } from '../integrations/ai-sdk/skill-toolkit.js';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { createInMemoryStateView } from '../state/in-memory-state-view.js';
import { loadOpenTelemetryApi } from './opentelemetry-api.js';

// An application without @opentelemetry/api (an optional peer): importing it fails as a missing package does.
vi.mock('@opentelemetry/api', () => {
  throw Object.assign(new Error("Cannot find package '@opentelemetry/api'"), { code: 'ERR_MODULE_NOT_FOUND' });
});

describe('without @opentelemetry/api installed', () => {
  it('skill tools run as usual and nothing is traced', async () => {
    expect(await loadOpenTelemetryApi()).toBeUndefined();
    const toolkit = createSkillToolkit({
      repository: createMemorySkillRepository([
        { name: 'haiku', description: 'Writes haiku.', body: 'Five, seven, five.' },
      ]),
    });
    const state = createInMemoryStateView();
    const context = createSkillCallContext({ sessionId: 's', state });
    const output = await toolkit.tools.skill_load!.execute!({ skill: 'haiku' }, {
      toolCallId: 'c1',
      messages: [],
      context,
      experimental_context: context,
    } as never);
    expect(output).toBe('loaded: haiku');
    expect(state.keys().some((key) => key.includes('haiku'))).toBe(true);
  });
});
