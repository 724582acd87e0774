/**
 * A multi-turn conversation without a model: each "model step" is a scripted list of tool calls.
 * The harness plays the runner's part (beginTurn, applyDeclaredLoads, materializeRequest,
 * afterModelRequest) and the tests assert the exact requests that would be sent.
 */
import { describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { createSkillTools } from '../tools/create-skill-tools.js';
import { SkillToolError } from '../tools/errors.js';
import { createInMemoryStateView, type InMemoryStateView } from '../tools/in-memory-state-view.js';
import { renderCatalog } from './catalog.js';
import { applyDeclaredLoads, type DeclaredSkillLoad } from './declared-loads.js';
import { SkillLoadRequestError, SkillUnavailableError } from './errors.js';
import type { LoadMode } from './load-mode.js';
import { materializeRequest, type MaterializationMode } from './materialize-request.js';
import type { ModelMessage, ToolResultOutput } from './model-messages.js';
import { mergeDeltas, overlayState } from './state-delta.js';
import { afterModelRequest, beginTurn } from './turn-lifecycle.js';

const repository = createMemorySkillRepository([
  { name: 'calc', description: 'math ops', body: 'Calc body', files: { 'USAGE.md': 'use me', 'EXTRA.md': 'extra doc' } },
  { name: 'notes', description: 'note taking', body: 'Notes body' },
  { name: 'weather', description: 'weather lookups', body: 'Weather body', tools: ['get_current_weather', 'get_weather_forecast'] },
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
    profile: ['skill_load', 'skill_list_docs', 'skill_select_docs', 'skill_read', 'skill_select_tools'],
    ...(options.maxLoadedSkills === undefined ? {} : { maxLoadedSkills: options.maxLoadedSkills }),
  });
  const transcript: ModelMessage[] = [{ role: 'system', content: 'You are helpful.' }];
  const requests: ModelMessage[][] = [];
  let callCount = 0;
  const loadMode = options.loadMode ?? 'turn';

  async function request(history: readonly ModelMessage[] = transcript): Promise<ModelMessage[]> {
    const messages = await materializeRequest({ messages: history, state, agentName, repository, mode: options.mode, catalog });
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
      content: calls.map((call, index) => ({ type: 'tool-call' as const, toolCallId: ids[index]!, toolName: call.tool, input: call.input })),
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

const calcBlock = '[Loaded] calc\n\nCalc body\n\nDocs loaded: USAGE.md\n\n[Doc] USAGE.md\n\nuse me';
const load = (skill: string, extra: Record<string, unknown> = {}): ToolCall => ({ tool: 'skill_load', input: { skill, ...extra } });
const systemTexts = (messages: ModelMessage[]) => messages.filter((message) => message.role === 'system').map((message) => message.content);
const toolTexts = (messages: ModelMessage[]) =>
  messages.flatMap((message) =>
    message.role === 'tool' ? message.content.map((part) => (part.type === 'tool-result' && part.output.type === 'text' ? part.output.value : JSON.stringify(part))) : [],
  );

describe('system-message materialisation', () => {
  it('appends loaded skills to the system message, evicts beyond the cap and resets on the next turn', async () => {
    const chat = conversation({ mode: 'system', maxLoadedSkills: 2 });
    const [first, second, third, fourth] = await chat.turn('add 2 and 3', [
      [load('calc', { docs: ['USAGE.md'] })],
      [load('notes')],
      [load('weather')],
    ]);
    expect(first).toEqual([
      { role: 'system', content: system },
      { role: 'user', content: 'add 2 and 3' },
    ]);
    expect(systemTexts(second!)).toEqual([`${system}\n\n${calcBlock}`]);
    expect(toolTexts(second!)).toEqual(['loaded: calc']);
    expect(systemTexts(third!)).toEqual([`${system}\n\n${calcBlock}\n\n[Loaded] notes\n\nNotes body\n\nDocs loaded: none`]);
    // calc was touched first, so the third load evicts it.
    expect(systemTexts(fourth!)).toEqual([
      `${system}\n\n[Loaded] notes\n\nNotes body\n\nDocs loaded: none\n\n[Loaded] weather\n\nWeather body\n\nDocs loaded: none\nTools selected: get_current_weather, get_weather_forecast`,
    ]);

    const [nextTurn] = await chat.turn('thanks', []);
    expect(systemTexts(nextTurn!)).toEqual([system]);
    // The stored transcript still holds only the stubs.
    expect(toolTexts(chat.transcript)).toEqual(['loaded: calc', 'loaded: notes', 'loaded: weather']);
  });

  it('once mode shows a load in exactly one request', async () => {
    const chat = conversation({ mode: 'system', loadMode: 'once' });
    const [, shown, after] = await chat.turn('calc please', [[load('calc', { docs: ['USAGE.md'] })], [{ tool: 'skill_read', input: { skill: 'notes', path: 'SKILL.md' } }]]);
    expect(systemTexts(shown!)).toEqual([`${system}\n\n${calcBlock}`]);
    expect(systemTexts(after!)).toEqual([system]);
  });

  it('session mode keeps skills across turns', async () => {
    const chat = conversation({ mode: 'system', loadMode: 'session' });
    await chat.turn('calc please', [[load('calc', { docs: ['USAGE.md'] })]]);
    const [next] = await chat.turn('again', []);
    expect(systemTexts(next!)).toEqual([`${system}\n\n${calcBlock}`]);
  });
});

describe('tool-result materialisation', () => {
  it('keeps the system message fixed and moves content to the latest load or select result', async () => {
    const chat = conversation({ mode: 'tool-result' });
    const [first, second, third] = await chat.turn('add 2 and 3', [
      [load('calc', { docs: ['USAGE.md'] })],
      [{ tool: 'skill_select_docs', input: { skill: 'calc', docs: ['EXTRA.md'], mode: 'add' } }],
    ]);
    for (const request of [first, second, third]) expect(systemTexts(request!)).toEqual([system]);
    expect(toolTexts(second!)).toEqual([calcBlock]);
    expect(toolTexts(third!)).toEqual([
      'loaded: calc',
      `{"skill":"calc","mode":"add","selected_docs":["USAGE.md","EXTRA.md"],"include_all_docs":false}\n\n[Loaded] calc\n\nCalc body\n\nDocs loaded: USAGE.md, EXTRA.md\n\n[Doc] USAGE.md\n\nuse me\n\n[Doc] EXTRA.md\n\nextra doc`,
    ]);
    // Earlier messages are byte-identical between consecutive requests: the cached prefix grows.
    expect(third!.slice(0, 3)).toEqual(second!.slice(0, 3));
  });

  it('falls back to one system message when the tool result is no longer in the history', async () => {
    const chat = conversation({ mode: 'tool-result', loadMode: 'session' });
    await chat.turn('notes and calc', [[load('calc', { docs: ['USAGE.md'] }), load('notes')]]);
    // The caller trims history to the last user message: the load results are gone.
    chat.transcript.push({ role: 'user', content: 'short history' });
    const trimmed: ModelMessage[] = [{ role: 'system', content: 'You are helpful.' }, { role: 'user', content: 'short history' }];
    const request = await chat.request(trimmed);
    expect(request).toEqual([
      { role: 'system', content: system },
      { role: 'system', content: `Loaded skill context:\n\n${calcBlock}\n\n[Loaded] notes\n\nNotes body\n\nDocs loaded: none` },
      { role: 'user', content: 'short history' },
    ]);
    expect(trimmed).toEqual([{ role: 'system', content: 'You are helpful.' }, { role: 'user', content: 'short history' }]);
  });

  it('a failed load anchors nothing and changes no state', async () => {
    const chat = conversation({ mode: 'tool-result' });
    const [, after] = await chat.turn('x', [[load('calc', { docs: ['NOPE.md'] })]]);
    expect(after!.at(-1)).toMatchObject({ role: 'tool', content: [{ output: { type: 'error-text' } }] });
    expect(chat.state.keys()).toEqual([]);
  });
});

describe('caller-declared loads', () => {
  it('applies the turn reset and the declarations together, before the first request', async () => {
    const chat = conversation({ mode: 'tool-result' });
    await chat.turn('first', [[load('notes')]]);
    const [first] = await chat.turn('review', [], [{ name: ' calc ', docs: [' USAGE.md '] }, { name: 'calc', docs: ['USAGE.md'] }]);
    expect(systemTexts(first!)).toEqual([system, `Loaded skill context:\n\n${calcBlock}`]);
  });

  it('rejects the whole batch on any invalid declaration and leaves state as it was', async () => {
    const chat = conversation({ mode: 'system', loadMode: 'session', maxLoadedSkills: 2 });
    await chat.turn('first', [[load('notes')]]);
    const before = chat.state.snapshot();
    const cases: [DeclaredSkillLoad[], typeof SkillLoadRequestError | typeof SkillUnavailableError, RegExp][] = [
      [[{ name: ' ' }], SkillLoadRequestError, /invalid skill load request: skill name is required/],
      [[{ name: 'calc', docs: ['USAGE.md'], includeAllDocs: true }], SkillLoadRequestError, /skill "calc" sets both docs and includeAllDocs/],
      [[{ name: 'calc', docs: ['SKILL.md'] }], SkillLoadRequestError, /invalid document "SKILL.md" for skill "calc"/],
      [[{ name: 'calc', docs: ['USAGE.md', ' USAGE.md'] }], SkillLoadRequestError, /duplicate document "USAGE.md" for skill "calc"/],
      [[{ name: 'calc', docs: ['USAGE.md'] }, { name: 'calc', includeAllDocs: true }], SkillLoadRequestError, /conflicting declarations for skill "calc"/],
      [[{ name: 'calc' }, { name: 'notes' }, { name: 'weather' }], SkillLoadRequestError, /requested 3 skills exceeds maximum 2/],
      [[{ name: 'notes' }, { name: 'nope' }], SkillUnavailableError, /skill unavailable: skill "nope"/],
      [[{ name: 'calc', docs: ['MISSING.md'] }], SkillUnavailableError, /skill unavailable: document "MISSING.md" for skill "calc"/],
    ];
    for (const [loads, kind, message] of cases) {
      const attempt = chat.turn('review', [], loads);
      await expect(attempt).rejects.toThrow(kind);
      await expect(chat.turn('review', [], loads)).rejects.toThrow(message);
    }
    expect(chat.state.snapshot()).toEqual(before);
  });
});

describe('sub-agents', () => {
  it("keeps a child's loads out of its parent's requests", async () => {
    const state = createInMemoryStateView();
    const parent = conversation({ mode: 'system', agentName: 'coordinator', state, loadMode: 'session' });
    const child = conversation({ mode: 'system', agentName: 'coordinator/researcher', state, loadMode: 'session' });
    const [, childAfter] = await child.turn('research', [[load('calc', { docs: ['USAGE.md'] })]]);
    expect(systemTexts(childAfter!)).toEqual([`${system}\n\n${calcBlock}`]);
    const [parentRequest] = await parent.turn('coordinate', []);
    expect(systemTexts(parentRequest!)).toEqual([system]);
  });
});
