import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SkillboxConfigError } from '../config/config-error.js';
import { readLoadedSkills } from '../disclosure/loaded-skills.js';
import { filterSkills } from '../repository/filter-skills.js';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { createInMemoryStateView, type InMemoryStateView } from '../state/in-memory-state-view.js';
import { docsKey, loadedKey } from '../state/state-keys.js';
import { createSkillTools } from './create-skill-tools.js';
import { SkillToolError } from './errors.js';
import type { ToolContext, ToolDefinition } from './types.js';

const repository = createMemorySkillRepository([
  {
    name: 'calc',
    description: 'math ops',
    body: '# Calc\n\nAdd numbers.\n',
    files: { 'USAGE.md': 'use me', 'docs/extra.txt': 'extra', 'scripts/add.py': 'print(1+1)\n' },
  },
  {
    name: 'weather-tools',
    description: 'Weather information query tools',
    body: 'Weather body',
    tools: ['get_current_weather', 'get_weather_forecast', 'search_city_by_name'],
  },
  { name: 'secret', description: 'admins only', body: 'secret body' },
]);
const filtered = filterSkills(
  repository,
  (summary, context) => summary.name !== 'secret' || context.roles?.includes('admin') === true,
);

function setup(options: Partial<Parameters<typeof createSkillTools>[0]> = {}) {
  const tools = createSkillTools({
    repository: filtered,
    profile: [
      'skill_list',
      'skill_load',
      'skill_list_docs',
      'skill_select_docs',
      'skill_read',
      'skill_list_tools',
      'skill_select_tools',
    ],
    ...options,
  });
  const state = createInMemoryStateView();
  const context: ToolContext = { sessionId: 's1', agentName: 'agent', state };
  const call = async (name: string, input: unknown) => {
    const tool = tools.find((candidate) => candidate.name === name) as ToolDefinition;
    return tool.execute(input, context);
  };
  return { tools, state, context, call };
}

async function expectToolError(promise: Promise<unknown>, pattern: RegExp, state: InMemoryStateView) {
  const before = state.delta();
  await expect(promise).rejects.toThrow(SkillToolError);
  await expect(promise).rejects.toThrow(pattern);
  expect(state.delta()).toEqual(before);
}

describe('skill_load', () => {
  it('returns the stub and records the load with docs', async () => {
    const { call, state } = setup();
    expect(await call('skill_load', { skill: 'calc', docs: ['USAGE.md'] })).toBe('loaded: calc');
    expect(state.get(loadedKey('agent', 'calc'))).toBe('1');
    expect(state.get(docsKey('agent', 'calc'))).toBe('["USAGE.md"]');
  });

  it('refuses unknown and hidden skills alike, naming the visible ones', async () => {
    const { call, state } = setup();
    await expectToolError(
      call('skill_load', { skill: 'nope' }),
      /unknown skill "nope". Use one of the listed skills: calc, weather-tools\./,
      state,
    );
    await expectToolError(call('skill_load', { skill: 'secret' }), /unknown skill "secret"/, state);
  });

  it('shows hidden skills to a caller allowed to see them', async () => {
    const { call, context } = setup();
    context.skillContext = { roles: ['admin'] };
    expect(await call('skill_load', { skill: 'secret' })).toBe('loaded: secret');
  });

  it('refuses unknown docs and docs with include_all_docs without changing state', async () => {
    const { call, state } = setup();
    await expectToolError(
      call('skill_load', { skill: 'calc', docs: ['NOPE.md'] }),
      /skill "calc" has no doc "NOPE.md"; its docs are: USAGE.md, docs\/extra.txt/,
      state,
    );
    await expectToolError(
      call('skill_load', { skill: 'calc', docs: ['USAGE.md'], include_all_docs: true }),
      /docs or include_all_docs, not both/,
      state,
    );
    await expectToolError(call('skill_load', { docs: [] }), /invalid input for skill_load: skill:/, state);
    expect(state.keys()).toEqual([]);
  });

  it('uses an enum of the visible names as the skill input when given', () => {
    const { tools } = setup({ skillNames: ['weather-tools', 'calc'] });
    const load = tools.find((tool) => tool.name === 'skill_load')!;
    expect(load.inputSchema.safeParse({ skill: 'calc' }).success).toBe(true);
    expect(load.inputSchema.safeParse({ skill: 'secret' }).success).toBe(false);
  });
});

describe('skill_select_docs', () => {
  it('adds in order without duplicates, replaces, narrows include_all, clears', async () => {
    const { call, state } = setup();
    await call('skill_load', { skill: 'calc' });
    expect(await call('skill_select_docs', { skill: 'calc', docs: ['docs/extra.txt'], mode: 'add' })).toEqual({
      skill: 'calc',
      mode: 'add',
      selected_docs: ['docs/extra.txt'],
      include_all_docs: false,
    });
    expect(
      await call('skill_select_docs', { skill: 'calc', docs: ['USAGE.md', 'docs/extra.txt'], mode: 'add' }),
    ).toMatchObject({
      selected_docs: ['docs/extra.txt', 'USAGE.md'],
    });
    expect(await call('skill_select_docs', { skill: 'calc', include_all_docs: true })).toMatchObject({
      mode: 'replace',
      selected_docs: ['USAGE.md', 'docs/extra.txt'],
      include_all_docs: true,
    });
    expect(state.get(docsKey('agent', 'calc'))).toBe('*');
    expect(await call('skill_select_docs', { skill: 'calc', docs: ['USAGE.md'], mode: 'replace' })).toMatchObject({
      selected_docs: ['USAGE.md'],
    });
    expect(await call('skill_select_docs', { skill: 'calc', mode: 'clear' })).toMatchObject({
      selected_docs: [],
      include_all_docs: false,
    });
    expect(state.get(docsKey('agent', 'calc'))).toBe('[]');
  });

  it('explains each mistake and changes nothing', async () => {
    const { call, state } = setup();
    await expectToolError(
      call('skill_select_docs', { skill: 'calc', docs: ['USAGE.md'] }),
      /not loaded; call skill_load \{"skill":"calc"\} first/,
      state,
    );
    await call('skill_load', { skill: 'calc' });
    state.commit();
    await expectToolError(
      call('skill_select_docs', { skill: 'calc', docs: ['x.md'] }),
      /has no doc "x.md".*Call skill_list_docs/,
      state,
    );
    await expectToolError(
      call('skill_select_docs', { skill: 'calc', docs: ['USAGE.md'], include_all_docs: true }),
      /not both/,
      state,
    );
    await expectToolError(
      call('skill_select_docs', { skill: 'calc', mode: 'bogus', docs: ['USAGE.md'] }),
      /invalid input for skill_select_docs: mode:/,
      state,
    );
    await expectToolError(
      call('skill_select_docs', { skill: 'calc', mode: 'clear', docs: ['USAGE.md'] }),
      /takes no docs/,
      state,
    );
    await expectToolError(
      call('skill_select_docs', { skill: 'calc', mode: 'add' }),
      /needs docs or include_all_docs/,
      state,
    );
    expect(state.delta()).toEqual({});
  });
});

describe('weather-tools selection flow (seed 001)', () => {
  it('lists, loads with every tool, then narrows and adds', async () => {
    const { call, state } = setup();
    expect(await call('skill_list', {})).toEqual(['calc', 'weather-tools']);
    expect(await call('skill_list_tools', { skill: 'weather-tools' })).toEqual({
      skill: 'weather-tools',
      available_tools: ['get_current_weather', 'get_weather_forecast', 'search_city_by_name'],
    });
    await call('skill_load', { skill: 'weather-tools' });
    expect(readLoadedSkills(state, 'agent')).toEqual([{ name: 'weather-tools', docs: [], tools: '*' }]);
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
    ).toMatchObject({
      selected_tools: ['get_current_weather', 'search_city_by_name'],
    });
    await expect(
      call('skill_select_tools', { skill: 'weather-tools', tools: ['ask_name_information'] }),
    ).rejects.toThrow(
      /has no tool "ask_name_information"; its tools are: get_current_weather, get_weather_forecast, search_city_by_name. Call skill_list_tools/,
    );
  });
});

describe('skill_read', () => {
  it('returns the body with the file index, or one file', async () => {
    const { call, state } = setup();
    const body = await call('skill_read', { skill: 'calc' });
    expect(body).toBe(
      '# Calc\n\nAdd numbers.\n\nFiles of skill "calc" (read one with skill_read and its path):\n- SKILL.md\n- USAGE.md\n- docs/extra.txt\n- scripts/add.py',
    );
    expect(await call('skill_read', { skill: 'calc', path: 'scripts/add.py' })).toBe('print(1+1)\n');
    expect(state.keys()).toEqual([]);
  });

  it('reads the skill://NAME/FILE address the XML catalog gives as a location, within that skill only', async () => {
    const { call, state } = setup();
    expect(await call('skill_read', { skill: 'calc', path: 'skill://calc/scripts/add.py' })).toBe('print(1+1)\n');
    expect(await call('skill_read', { skill: 'calc', path: 'skill://calc/SKILL.md' })).toContain('# Calc');
    await expectToolError(
      call('skill_read', { skill: 'calc', path: 'skill://weather-tools/SKILL.md' }),
      /path "skill:\/\/weather-tools\/SKILL.md" is in skill "weather-tools", not "calc"/,
      state,
    );
    await expectToolError(
      call('skill_read', { skill: 'calc', path: 'skill://calc/../weather-tools/SKILL.md' }),
      /refused path/,
      state,
    );
  });

  it('takes skill_name for skill, as the Python framework names it, without advertising it', async () => {
    const { call, tools } = setup();
    expect(await call('skill_read', { skill_name: 'calc', path: 'USAGE.md' })).toBe('use me');
    expect(await call('skill_list_docs', { skill_name: 'calc' })).toBeDefined();
    for (const tool of tools)
      expect(JSON.stringify(z.toJSONSchema(tool.inputSchema, { io: 'input' }))).not.toContain('skill_name');
  });

  it('refuses paths outside the skill and names a missing file', async () => {
    const { call, state } = setup();
    await expectToolError(
      call('skill_read', { skill: 'calc', path: '../weather-tools/SKILL.md' }),
      /refused path/,
      state,
    );
    await expectToolError(
      call('skill_read', { skill: 'calc', path: 'missing.md' }),
      /has no file "missing.md". Call skill_read \{"skill":"calc"\} to list its files/,
      state,
    );
  });

  it('pages a long file and says where the next page starts', async () => {
    const line = 'x'.repeat(99);
    const big = createMemorySkillRepository([
      {
        name: 'big',
        description: 'd',
        body: 'b',
        files: { 'ref.md': `${line}\n`.repeat(30), 'bin.dat': new Uint8Array([1, 0, 2]) },
      },
    ]);
    const tools = createSkillTools({ repository: big, readPageBytes: 1000 });
    const read = tools.find((tool) => tool.name === 'skill_read')!;
    const context: ToolContext = { sessionId: 's', agentName: 'a', state: createInMemoryStateView() };
    const first = (await read.execute({ skill: 'big', path: 'ref.md' }, context)) as string;
    expect(first).toBe(
      `${`${line}\n`.repeat(10)}\n\n[bytes 0-1000 of 3000; call {"skill":"big","path":"ref.md","offset":1000} for the rest]`,
    );
    const last = (await read.execute({ skill: 'big', path: 'ref.md', offset: 2000 }, context)) as string;
    expect(last.endsWith('[bytes 2000-3000 of 3000; this is the end]')).toBe(true);
    await expect(read.execute({ skill: 'big', path: 'ref.md', offset: 5000 }, context)).rejects.toThrow(
      /past the end \(3000 bytes\)/,
    );
    expect(await read.execute({ skill: 'big', path: 'bin.dat' }, context)).toBe(
      '"bin.dat" of skill "big" is a binary file (3 bytes); it is not shown as text.',
    );
  });

  it('pages multi-byte text by bytes without splitting a character, and the pages join up to the file', async () => {
    const text = 'é数😀 mixed text without line ends '.repeat(200);
    const wide = createMemorySkillRepository([
      { name: 'wide', description: 'd', body: 'b', files: { 'wide.md': text } },
    ]);
    const read = createSkillTools({ repository: wide, readPageBytes: 1000 }).find(
      (tool) => tool.name === 'skill_read',
    )!;
    const context: ToolContext = { sessionId: 's', agentName: 'a', state: createInMemoryStateView() };
    let joined = '';
    let offset: number | undefined = 0;
    for (let pages = 0; offset !== undefined; pages += 1) {
      expect(pages).toBeLessThan(20);
      const page = (await read.execute({ skill: 'wide', path: 'wide.md', offset }, context)) as string;
      const marker = /\n\n\[bytes (\d+)-(\d+) of (\d+); (?:call (\{.*\}) for the rest|this is the end)\]$/.exec(page);
      expect(marker).not.toBeNull();
      expect(Number(marker![1])).toBe(offset);
      expect(Number(marker![2]) - offset).toBeLessThanOrEqual(1000);
      const content = page.slice(0, marker!.index);
      expect(content).not.toContain('\uFFFD');
      joined += content;
      offset = marker![4] === undefined ? undefined : (JSON.parse(marker![4]) as { offset: number }).offset;
    }
    expect(joined).toBe(text);
  });
});

describe('createSkillTools profiles', () => {
  const run: ToolDefinition = {
    name: 'skill_run',
    description: 'run',
    inputSchema: {} as never,
    execute: async () => ({}),
  };
  const exec: ToolDefinition = {
    name: 'workspace_exec',
    description: 'exec',
    inputSchema: {} as never,
    execute: async () => ({}),
  };
  const names = (tools: ToolDefinition[]) => tools.map((tool) => tool.name);

  it('knowledge by default, full with execution tools and the selection pair only with a tool pool', () => {
    expect(names(createSkillTools({ repository }))).toEqual([
      'skill_load',
      'skill_list_docs',
      'skill_select_docs',
      'skill_read',
    ]);
    expect(names(createSkillTools({ repository, profile: 'full', executionTools: [run, exec] }))).toEqual([
      'skill_load',
      'skill_list_docs',
      'skill_select_docs',
      'skill_read',
      'skill_run',
      'workspace_exec',
    ]);
    expect(
      names(
        createSkillTools({
          repository,
          profile: 'full',
          executionTools: [run, exec],
          toolPool: ['get_current_weather'],
        }),
      ),
    ).toEqual([
      'skill_load',
      'skill_list_docs',
      'skill_select_docs',
      'skill_read',
      'skill_list_tools',
      'skill_select_tools',
      'skill_run',
      'workspace_exec',
    ]);
    expect(
      names(createSkillTools({ repository, profile: ['skill_read', 'skill_run'], executionTools: [run] })),
    ).toEqual(['skill_read', 'skill_run']);
  });

  it('rejects configurations that cannot work', () => {
    expect(() => createSkillTools({ repository, profile: 'full' })).toThrow(SkillboxConfigError);
    expect(() => createSkillTools({ repository, profile: 'full' })).toThrow(
      /^createSkillTools: option "profile" "full" needs executionTools/,
    );
    expect(() => createSkillTools({ repository, profile: ['skill_load', 'skill_run'] })).toThrow(
      /names unknown tools: skill_run/,
    );
    expect(() => createSkillTools({ repository, profile: 'everything' as never })).toThrow(
      /must be "knowledge", "full" or an array/,
    );
    expect(() => createSkillTools({ repository, maxLoadedSkills: -1 })).toThrow(
      'createSkillTools: option "maxLoadedSkills" must be a positive integer (0 or undefined for no limit); got -1',
    );
  });
});
