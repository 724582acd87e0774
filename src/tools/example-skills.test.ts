import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { materializeRequest } from '../disclosure/materialize-request.js';
import { createFsSkillRepository } from '../repository/fs-skill-repository.js';
import { createInMemoryStateView } from '../state/in-memory-state-view.js';
import { createSkillTools } from './create-skill-tools.js';
import type { ToolContext } from './types.js';

const examples = fileURLToPath(new URL('../../examples/skills', import.meta.url));
const repository = await createFsSkillRepository({ roots: [examples] });

function session(profile: string[]) {
  const tools = createSkillTools({
    repository,
    profile,
    skillNames: ['file-ops', 'python-math', 'user-file-ops', 'weather-tools'],
  });
  const state = createInMemoryStateView();
  const context: ToolContext = { sessionId: 's', agentName: 'assistant', state };
  return {
    state,
    call: (name: string, input: unknown) => tools.find((tool) => tool.name === name)!.execute(input, context),
  };
}

describe("the seeds' examples on examples/skills", () => {
  it('python-math: load puts the SKILL.md body into the next request, then the selected doc', async () => {
    const { state, call } = session(['skill_load', 'skill_list_docs', 'skill_select_docs']);
    expect(await call('skill_load', { skill: 'python-math' })).toBe('loaded: python-math');
    const file = await readFile(`${examples}/python-math/SKILL.md`, 'utf8');
    const body = file.slice(file.indexOf('\n---\n', 4) + 5).trim();
    const messages = [
      { role: 'system' as const, content: 'base' },
      { role: 'user' as const, content: 'first 10 Fibonacci numbers' },
    ];
    const request = await materializeRequest({ messages, state, agentName: 'assistant', repository });
    expect(request[0]).toEqual({
      role: 'system',
      content: `base\n\n[Loaded] python-math\n\n${body}\n\nDocs loaded: none`,
    });

    expect(await call('skill_list_docs', { skill: 'python-math' })).toEqual(['docs/usage.md']);
    await call('skill_select_docs', { skill: 'python-math', docs: ['docs/usage.md'] });
    const usage = (await readFile(`${examples}/python-math/docs/usage.md`, 'utf8')).trim();
    const next = await materializeRequest({ messages, state, agentName: 'assistant', repository });
    expect(next[0]).toEqual({
      role: 'system',
      content: `base\n\n[Loaded] python-math\n\n${body}\n\nDocs loaded: docs/usage.md\n\n[Doc] docs/usage.md\n\n${usage}`,
    });
  });

  it('weather-tools: list the tools, load (all selected), narrow to one, add another', async () => {
    const { call } = session(['skill_list', 'skill_list_tools', 'skill_load', 'skill_select_tools']);
    expect(await call('skill_list', {})).toEqual(['file-ops', 'python-math', 'user-file-ops', 'weather-tools']);
    expect(await call('skill_list_tools', { skill: 'weather-tools' })).toEqual({
      skill: 'weather-tools',
      available_tools: ['get_current_weather', 'get_weather_forecast', 'search_city_by_name'],
    });
    await call('skill_load', { skill: 'weather-tools' });
    expect(
      await call('skill_select_tools', { skill: 'weather-tools', tools: ['get_current_weather'], mode: 'replace' }),
    ).toEqual({
      skill: 'weather-tools',
      mode: 'replace',
      selected_tools: ['get_current_weather'],
      include_all_tools: false,
    });
    expect(
      await call('skill_select_tools', { skill: 'weather-tools', tools: ['search_city_by_name'], mode: 'add' }),
    ).toEqual({
      skill: 'weather-tools',
      mode: 'add',
      selected_tools: ['get_current_weather', 'search_city_by_name'],
      include_all_tools: false,
    });
    await expect(
      call('skill_select_tools', { skill: 'weather-tools', tools: ['old_weather_api'], mode: 'add' }),
    ).rejects.toThrow(/has no tool "old_weather_api"/);
  });
});
