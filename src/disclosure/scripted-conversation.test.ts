/**
 * A multi-turn conversation without a model: each "model step" is a scripted list of tool calls.
 * The harness plays the runner's part (beginTurn, applyDeclaredLoads, materializeRequest,
 * afterModelRequest) and the tests assert the exact requests that would be sent, in both
 * materialisation modes: every tool, every load mode, eviction, declared loads and the fallback.
 */
import { describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { createInMemoryStateView, type InMemoryStateView } from '../state/in-memory-state-view.js';
import { mergeDeltas, overlayState } from '../state/state-delta.js';
import { createSkillTools } from '../tools/create-skill-tools.js';
import { SkillToolError } from '../tools/errors.js';
import { renderCatalog } from './catalog.js';
import { applyDeclaredLoads, type DeclaredSkillLoad } from './declared-loads.js';
import { SkillLoadRequestError, SkillUnavailableError } from './errors.js';
import type { LoadMode } from './load-mode.js';
import { type MaterializationMode, materializeRequest } from './materialize-request.js';
import type { ModelMessage, ToolResultOutput } from './model-messages.js';
import { afterModelRequest, beginTurn } from './turn-lifecycle.js';

const repository = createMemorySkillRepository([
  {
    name: 'calc',
    description: 'math ops',
    body: 'Calc body',
    files: { 'USAGE.md': 'use me', 'EXTRA.md': 'extra doc' },
  },
  { name: 'notes', description: 'note taking', body: 'Notes body' },
  {
    name: 'weather',
    description: 'weather lookups',
    body: 'Weather body',
    tools: ['get_current_weather', 'get_weather_forecast'],
  },
]);
const catalog = renderCatalog({ skills: await repository.list(), guidance: false });
const system = `You are helpful.\n\n${catalog}`;

interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
}

interface ConversationOptions {
  mode: MaterializationMode;
  loadMode?: LoadMode;
  maxLoadedSkills?: number;
  agentName?: string;
  state?: InMemoryStateView;
}

function conversation(options: ConversationOptions) {
  const agentName = options.agentName ?? 'assistant';
  const state = options.state ?? createInMemoryStateView();
  const tools = createSkillTools({
    repository,
    profile: [
      'skill_list',
      'skill_load',
      'skill_list_docs',
      'skill_select_docs',
      'skill_read',
      'skill_list_tools',
      'skill_select_tools',
    ],
    ...(options.maxLoadedSkills === undefined ? {} : { maxLoadedSkills: options.maxLoadedSkills }),
  });
  const transcript: ModelMessage[] = [{ role: 'system', content: 'You are helpful.' }];
  const requests: ModelMessage[][] = [];
  let callCount = 0;
  const loadMode = options.loadMode ?? 'turn';

  async function request(history: readonly ModelMessage[] = transcript): Promise<ModelMessage[]> {
    const messages = await materializeRequest({
      messages: history,
      state,
      agentName,
      repository,
      mode: options.mode,
      catalog,
    });
    state.commit();
    const after = afterModelRequest(state, { agentName, mode: loadMode });
    for (const [key, value] of Object.entries(after)) state.set(key, value);
    state.commit();
    requests.push(messages);
    return messages;
  }

  async function callTools(calls: readonly ToolCall[]): Promise<void> {
    const ids = calls.map(() => `call_${++callCount}`);
    transcript.push({
      role: 'assistant',
      content: calls.map((call, index) => ({
        type: 'tool-call' as const,
        toolCallId: ids[index]!,
        toolName: call.tool,
        input: call.input,
      })),
    });
    const results = [];
    for (const [index, call] of calls.entries()) {
      const tool = tools.find((candidate) => candidate.name === call.tool)!;
      let output: ToolResultOutput;
      try {
        const value = await tool.execute(call.input, { sessionId: 's', agentName, state, toolCallId: ids[index]! });
        output = typeof value === 'string' ? { type: 'text', value } : { type: 'json', value: value as never };
        state.commit();
      } catch (error) {
        if (!(error instanceof SkillToolError)) throw error;
        state.discard();
        output = { type: 'error-text', value: error.message };
      }
      results.push({ type: 'tool-result' as const, toolCallId: ids[index]!, toolName: call.tool, output });
    }
    transcript.push({ role: 'tool', content: results });
  }

  /** One user turn: a request per step, the scripted tool calls after each, then the final request. */
  async function turn(text: string, steps: ToolCall[][], declared?: DeclaredSkillLoad[]): Promise<ModelMessage[][]> {
    const reset = beginTurn(state, { agentName, mode: loadMode });
    const loads =
      declared === undefined
        ? {}
        : await applyDeclaredLoads(overlayState(state, reset), {
            agentName,
            repository,
            loads: declared,
            ...(options.maxLoadedSkills === undefined ? {} : { maxLoadedSkills: options.maxLoadedSkills }),
          });
    for (const [key, value] of Object.entries(mergeDeltas(reset, loads))) state.set(key, value);
    state.commit();
    transcript.push({ role: 'user', content: text });
    const sent: ModelMessage[][] = [];
    for (const step of steps) {
      sent.push(await request());
      await callTools(step);
    }
    sent.push(await request());
    transcript.push({ role: 'assistant', content: [{ type: 'text', text: 'done' }] });
    return sent;
  }

  return { state, transcript, requests, turn, request };
}

const modes: readonly MaterializationMode[] = ['system', 'tool-result'];
const calcBlock = '[Loaded] calc\n\nCalc body\n\nDocs loaded: USAGE.md\n\n[Doc] USAGE.md\n\nuse me';
const calcBothDocsBlock =
  '[Loaded] calc\n\nCalc body\n\nDocs loaded: USAGE.md, EXTRA.md\n\n[Doc] USAGE.md\n\nuse me\n\n[Doc] EXTRA.md\n\nextra doc';
const notesBlock = '[Loaded] notes\n\nNotes body\n\nDocs loaded: none';
const weatherBlock = (tools: string) =>
  `[Loaded] weather\n\nWeather body\n\nDocs loaded: none\nTools selected: ${tools}`;
const allWeatherTools = 'get_current_weather, get_weather_forecast';
const load = (skill: string, extra: Record<string, unknown> = {}): ToolCall => ({
  tool: 'skill_load',
  input: { skill, ...extra },
});
const call = (tool: string, input: Record<string, unknown>): ToolCall => ({ tool, input });
const systemTexts = (messages: ModelMessage[]) =>
  messages.filter((message) => message.role === 'system').map((message) => message.content);
/** Every tool result of a request as the model reads it: text as is, JSON serialised, errors marked. */
const toolTexts = (messages: ModelMessage[]) =>
  messages.flatMap((message) =>
    message.role === 'tool'
      ? message.content.map((part) => {
          if (part.type !== 'tool-result') return JSON.stringify(part);
          const output = part.output;
          if (output.type === 'text') return output.value;
          if (output.type === 'json') return `json: ${JSON.stringify(output.value)}`;
          if (output.type === 'error-text') return `error: ${output.value}`;
          return JSON.stringify(output);
        })
      : [],
  );
/** The first request of a turn when nothing is loaded: the catalog and the user's message. */
const opening = (text: string): ModelMessage[] => [
  { role: 'system', content: system },
  { role: 'user', content: text },
];
/**
 * A request whose only tool result is one skill's load: system mode appends the block to the
 * system message and keeps the stub, tool-result mode puts the block in place of the stub.
 */
function expectOneLoadShown(request: ModelMessage[], mode: MaterializationMode, skill: string, block: string): void {
  expect(systemTexts(request)).toEqual(mode === 'system' ? [`${system}\n\n${block}`] : [system]);
  expect(toolTexts(request)).toEqual([mode === 'system' ? `loaded: ${skill}` : block]);
}
/** The first system message with loaded blocks appended, as system mode sends it. */
const systemWith = (...blocks: string[]) => [blocks.length === 0 ? system : `${system}\n\n${blocks.join('\n\n')}`];

describe.each(modes)('every tool, %s materialisation', (mode) => {
  it('drives each disclosure tool through one turn and resets on the next (turn mode)', async () => {
    const chat = conversation({ mode });
    const requests = await chat.turn('plan a trip', [
      [call('skill_list', {})],
      [call('skill_list_docs', { skill: 'calc' }), call('skill_list_tools', { skill: 'weather' })],
      [load('weather'), load('calc', { docs: ['USAGE.md'] })],
      [
        call('skill_select_tools', { skill: 'weather', tools: ['get_current_weather'] }),
        call('skill_select_docs', { skill: 'calc', docs: ['EXTRA.md'], mode: 'add' }),
      ],
      [call('skill_read', { skill: 'calc', path: 'EXTRA.md' }), call('skill_read', { skill: 'notes' })],
    ]);
    expect(requests).toHaveLength(6);
    const [first, afterList, afterListItems, afterLoad, afterSelect, afterRead] = requests as [
      ModelMessage[],
      ModelMessage[],
      ModelMessage[],
      ModelMessage[],
      ModelMessage[],
      ModelMessage[],
    ];
    expect(first).toEqual(opening('plan a trip'));
    const listed = ['json: ["calc","notes","weather"]'];
    const itemLists = [
      'json: ["EXTRA.md","USAGE.md"]',
      'json: {"skill":"weather","available_tools":["get_current_weather","get_weather_forecast"]}',
    ];
    const selected = [
      'json: {"skill":"weather","mode":"replace","selected_tools":["get_current_weather"],"include_all_tools":false}',
      'json: {"skill":"calc","mode":"add","selected_docs":["USAGE.md","EXTRA.md"],"include_all_docs":false}',
    ];
    const read = [
      'extra doc',
      'Notes body\n\nFiles of skill "notes" (read one with skill_read and its path):\n- SKILL.md',
    ];
    // Listing tools write no state: nothing is loaded until skill_load.
    expect(systemTexts(afterList)).toEqual(systemWith());
    expect(toolTexts(afterList)).toEqual(listed);
    expect(systemTexts(afterListItems)).toEqual(systemWith());
    expect(toolTexts(afterListItems)).toEqual([...listed, ...itemLists]);

    if (mode === 'system') {
      expect(systemTexts(afterLoad)).toEqual(systemWith(calcBlock, weatherBlock(allWeatherTools)));
      expect(toolTexts(afterLoad)).toEqual([...listed, ...itemLists, 'loaded: weather', 'loaded: calc']);
      expect(systemTexts(afterSelect)).toEqual(systemWith(calcBothDocsBlock, weatherBlock('get_current_weather')));
      expect(toolTexts(afterSelect)).toEqual([...listed, ...itemLists, 'loaded: weather', 'loaded: calc', ...selected]);
      expect(systemTexts(afterRead)).toEqual(systemWith(calcBothDocsBlock, weatherBlock('get_current_weather')));
      expect(toolTexts(afterRead)).toEqual([
        ...listed,
        ...itemLists,
        'loaded: weather',
        'loaded: calc',
        ...selected,
        ...read,
      ]);
    } else {
      for (const request of requests) expect(systemTexts(request)).toEqual([system]);
      expect(toolTexts(afterLoad)).toEqual([...listed, ...itemLists, weatherBlock(allWeatherTools), calcBlock]);
      // skill_select_tools is no anchor: the weather block stays on its load result, with the new selection;
      // skill_select_docs is, so calc's content moves there and its load result is a stub again.
      const selectedWithContent = [selected[0]!, `${selected[1]!.slice('json: '.length)}\n\n${calcBothDocsBlock}`];
      expect(toolTexts(afterSelect)).toEqual([
        ...listed,
        ...itemLists,
        weatherBlock('get_current_weather'),
        'loaded: calc',
        ...selectedWithContent,
      ]);
      expect(toolTexts(afterRead)).toEqual([
        ...listed,
        ...itemLists,
        weatherBlock('get_current_weather'),
        'loaded: calc',
        ...selectedWithContent,
        ...read,
      ]);
    }

    const [nextTurn] = await chat.turn('thanks', []);
    expect(systemTexts(nextTurn!)).toEqual(systemWith());
    expect(toolTexts(nextTurn!)).toEqual([
      ...listed,
      ...itemLists,
      'loaded: weather',
      'loaded: calc',
      ...selected,
      ...read,
    ]);
    expect(chat.state.keys()).toEqual([]);
  });

  it('evicts the least recently touched skill beyond maxLoadedSkills', async () => {
    const chat = conversation({ mode, maxLoadedSkills: 2 });
    const [first, second, third, fourth] = await chat.turn('add 2 and 3', [
      [load('calc', { docs: ['USAGE.md'] })],
      [load('notes')],
      [load('weather')],
    ]);
    expect(first).toEqual(opening('add 2 and 3'));
    if (mode === 'system') {
      expect(systemTexts(second!)).toEqual(systemWith(calcBlock));
      expect(toolTexts(second!)).toEqual(['loaded: calc']);
      expect(systemTexts(third!)).toEqual(systemWith(calcBlock, notesBlock));
      expect(toolTexts(third!)).toEqual(['loaded: calc', 'loaded: notes']);
      // calc was touched first, so the third load evicts it.
      expect(systemTexts(fourth!)).toEqual(systemWith(notesBlock, weatherBlock(allWeatherTools)));
      expect(toolTexts(fourth!)).toEqual(['loaded: calc', 'loaded: notes', 'loaded: weather']);
    } else {
      for (const request of [second, third, fourth]) expect(systemTexts(request!)).toEqual([system]);
      expect(toolTexts(second!)).toEqual([calcBlock]);
      expect(toolTexts(third!)).toEqual([calcBlock, notesBlock]);
      // The evicted skill's result falls back to the stub the transcript holds.
      expect(toolTexts(fourth!)).toEqual(['loaded: calc', notesBlock, weatherBlock(allWeatherTools)]);
    }
    const [nextTurn] = await chat.turn('thanks', []);
    expect(systemTexts(nextTurn!)).toEqual(systemWith());
    // The stored transcript still holds only the stubs.
    expect(toolTexts(chat.transcript)).toEqual(['loaded: calc', 'loaded: notes', 'loaded: weather']);
  });

  it('once mode shows a load in exactly one request', async () => {
    const chat = conversation({ mode, loadMode: 'once' });
    const [before, shown, after] = await chat.turn('calc please', [
      [load('calc', { docs: ['USAGE.md'] })],
      [call('skill_read', { skill: 'notes', path: 'SKILL.md' })],
    ]);
    expect(before).toEqual(opening('calc please'));
    expectOneLoadShown(shown!, mode, 'calc', calcBlock);
    expect(systemTexts(after!)).toEqual([system]);
    expect(toolTexts(after!)).toEqual(['loaded: calc', '---\nname: notes\ndescription: note taking\n---\nNotes body']);
  });

  it('turn mode keeps a load for every request of its turn, not the next', async () => {
    const chat = conversation({ mode, loadMode: 'turn' });
    const [, shown, stillShown] = await chat.turn('notes please', [[load('notes')], [call('skill_list', {})]]);
    expectOneLoadShown(shown!, mode, 'notes', notesBlock);
    expect(systemTexts(stillShown!)).toEqual(systemTexts(shown!));
    expect(toolTexts(stillShown!)).toEqual([...toolTexts(shown!), 'json: ["calc","notes","weather"]']);
    const [nextTurn] = await chat.turn('more', []);
    expect(systemTexts(nextTurn!)).toEqual([system]);
    expect(toolTexts(nextTurn!)).toEqual(['loaded: notes', 'json: ["calc","notes","weather"]']);
  });

  it('session mode keeps skills across turns', async () => {
    const chat = conversation({ mode, loadMode: 'session' });
    await chat.turn('calc please', [[load('calc', { docs: ['USAGE.md'] })]]);
    const [next] = await chat.turn('again', []);
    // In tool-result mode the load result of the earlier turn is still in the history, so it stays the anchor.
    expectOneLoadShown(next!, mode, 'calc', calcBlock);
  });

  it('shows loads that are no longer in the history (trimmed by the caller) in a system message', async () => {
    const chat = conversation({ mode, loadMode: 'session' });
    await chat.turn('notes and calc', [[load('calc', { docs: ['USAGE.md'] }), load('notes')]]);
    // The caller trims history to the last user message: the load results are gone.
    chat.transcript.push({ role: 'user', content: 'short history' });
    const trimmed: ModelMessage[] = [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'short history' },
    ];
    const request = await chat.request(trimmed);
    expect(request).toEqual(
      mode === 'system'
        ? [
            { role: 'system', content: `${system}\n\n${calcBlock}\n\n${notesBlock}` },
            { role: 'user', content: 'short history' },
          ]
        : [
            { role: 'system', content: system },
            { role: 'system', content: `Loaded skill context:\n\n${calcBlock}\n\n${notesBlock}` },
            { role: 'user', content: 'short history' },
          ],
    );
    expect(trimmed).toEqual([
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'short history' },
    ]);
  });

  it('a failed load anchors nothing and changes no state', async () => {
    const chat = conversation({ mode });
    const [, after] = await chat.turn('x', [[load('calc', { docs: ['NOPE.md'] })]]);
    expect(systemTexts(after!)).toEqual([system]);
    expect(toolTexts(after!)).toEqual([
      'error: skill "calc" has no doc "NOPE.md"; its docs are: EXTRA.md, USAGE.md. Call skill_load without docs, or pick docs from that list.',
    ]);
    expect(chat.state.keys()).toEqual([]);
  });

  it('caller-declared loads apply with the turn reset, before the first request', async () => {
    const chat = conversation({ mode });
    await chat.turn('first', [[load('notes')]]);
    const [first, afterLoad] = await chat.turn(
      'review',
      [[load('weather')]],
      [
        { name: ' calc ', docs: [' USAGE.md '] },
        { name: 'calc', docs: ['USAGE.md'] },
      ],
    );
    if (mode === 'system') {
      expect(systemTexts(first!)).toEqual(systemWith(calcBlock));
      expect(systemTexts(afterLoad!)).toEqual(systemWith(calcBlock, weatherBlock(allWeatherTools)));
      expect(toolTexts(afterLoad!)).toEqual(['loaded: notes', 'loaded: weather']);
    } else {
      // A declared load has no tool result to anchor to: it is shown in its own system message.
      expect(systemTexts(first!)).toEqual([system, `Loaded skill context:\n\n${calcBlock}`]);
      expect(systemTexts(afterLoad!)).toEqual([system, `Loaded skill context:\n\n${calcBlock}`]);
      expect(toolTexts(afterLoad!)).toEqual(['loaded: notes', weatherBlock(allWeatherTools)]);
    }
  });

  it("keeps a child's loads out of its parent's requests", async () => {
    const state = createInMemoryStateView();
    const parent = conversation({ mode, agentName: 'coordinator', state, loadMode: 'session' });
    const child = conversation({ mode, agentName: 'coordinator/researcher', state, loadMode: 'session' });
    const [, childAfter] = await child.turn('research', [[load('calc', { docs: ['USAGE.md'] })]]);
    expectOneLoadShown(childAfter!, mode, 'calc', calcBlock);
    const [parentRequest] = await parent.turn('coordinate', []);
    expect(parentRequest).toEqual(opening('coordinate'));
  });
});

describe('tool-result materialisation keeps the cached prefix', () => {
  it('leaves earlier messages byte-identical when content moves to a later select result', async () => {
    const chat = conversation({ mode: 'tool-result' });
    const [, second, third] = await chat.turn('add 2 and 3', [
      [load('calc', { docs: ['USAGE.md'] })],
      [call('skill_select_docs', { skill: 'calc', docs: ['EXTRA.md'], mode: 'add' })],
    ]);
    expect(third!.slice(0, 3)).toEqual(second!.slice(0, 3));
  });
});

describe('caller-declared loads', () => {
  it('rejects the whole batch on any invalid declaration and leaves state as it was', async () => {
    const chat = conversation({ mode: 'system', loadMode: 'session', maxLoadedSkills: 2 });
    await chat.turn('first', [[load('notes')]]);
    const before = chat.state.snapshot();
    const cases: [DeclaredSkillLoad[], typeof SkillLoadRequestError | typeof SkillUnavailableError, RegExp][] = [
      [[{ name: ' ' }], SkillLoadRequestError, /invalid skill load request: skill name is required/],
      [
        [{ name: 'calc', docs: ['USAGE.md'], includeAllDocs: true }],
        SkillLoadRequestError,
        /skill "calc" sets both docs and includeAllDocs/,
      ],
      [[{ name: 'calc', docs: ['SKILL.md'] }], SkillLoadRequestError, /invalid document "SKILL.md" for skill "calc"/],
      [
        [{ name: 'calc', docs: ['USAGE.md', ' USAGE.md'] }],
        SkillLoadRequestError,
        /duplicate document "USAGE.md" for skill "calc"/,
      ],
      [
        [
          { name: 'calc', docs: ['USAGE.md'] },
          { name: 'calc', includeAllDocs: true },
        ],
        SkillLoadRequestError,
        /conflicting declarations for skill "calc"/,
      ],
      [
        [{ name: 'calc' }, { name: 'notes' }, { name: 'weather' }],
        SkillLoadRequestError,
        /requested 3 skills exceeds maximum 2/,
      ],
      [[{ name: 'notes' }, { name: 'nope' }], SkillUnavailableError, /skill unavailable: skill "nope"/],
      [
        [{ name: 'calc', docs: ['MISSING.md'] }],
        SkillUnavailableError,
        /skill unavailable: document "MISSING.md" for skill "calc"/,
      ],
    ];
    for (const [loads, kind, message] of cases) {
      const attempt = chat.turn('review', [], loads);
      await expect(attempt).rejects.toThrow(kind);
      await expect(chat.turn('review', [], loads)).rejects.toThrow(message);
    }
    expect(chat.state.snapshot()).toEqual(before);
  });
});
