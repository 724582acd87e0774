import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonSchema, type Tool, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCatalog } from '../../src/disclosure/catalog.js';
import { createSkillAgent, type SkillAgentEvent } from '../../src/integrations/ai-sdk/index.js';
import { createScriptedModel } from '../../src/integrations/ai-sdk/testing/scripted-model.js';
import { FsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { createMemorySessionStore } from '../../src/sessions/memory-session-store.js';
import { createWorkspaceManager } from '../../src/workspace/workspace-manager.js';
import {
  askNameUnavailable,
  exampleSkillsRoot,
  executionSkillToolNames,
  fibonacciTen,
  assistantInstructions as instructions,
  pythonMathConversation,
  pythonMathLoadResult,
  pythonMathRunInput,
  skillToolNames,
  weatherAnswer,
  weatherConversation,
  weatherLoadResult,
  weatherPoolAnswers,
  weatherQuestion,
  weatherSelectedTools,
} from '../support/example-skill-conversations.js';

// Example agent flows end to end: the AI SDK's mock model plays the model, everything else is
// real (skills on disk, the tools, the sandbox, the session store). Each test pins the exact
// messages the model received at every step.

let repository: FsSkillRepository;
let scratch: string;

beforeAll(async () => {
  repository = await FsSkillRepository.open({ roots: [exampleSkillsRoot] });
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-seed-flows-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function collect(events: AsyncIterable<SkillAgentEvent>): Promise<SkillAgentEvent[]> {
  const all: SkillAgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

async function skillBody(name: string): Promise<string> {
  return (await repository.get(name)).body.trim();
}

async function systemMessage(tools: readonly string[]): Promise<{ role: 'system'; content: string }> {
  return { role: 'system', content: `${instructions}\n\n${renderCatalog({ skills: await repository.list(), tools })}` };
}

function userText(text: string) {
  return { role: 'user', content: [{ type: 'text', text }] };
}

function toolCallMessage(toolCallId: string, toolName: string, input: unknown) {
  return { role: 'assistant', content: [{ type: 'tool-call', toolCallId, toolName, input }] };
}

function toolResultMessage(toolCallId: string, toolName: string, output: unknown) {
  return { role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName, output }] };
}

/** A skill_run result as the model receives it; only the duration varies from run to run. */
function runResultValue(file: { name: string; content: string }, isolated: boolean) {
  const described = {
    name: file.name,
    mime_type: 'text/plain; charset=utf-8',
    size_bytes: Buffer.byteLength(file.content),
    truncated: false,
    ref: `workspace://${file.name}`,
    content: file.content,
  };
  return {
    type: 'json',
    value: {
      stdout: '',
      stderr: '',
      exit_code: 0,
      timed_out: false,
      duration_ms: expect.any(Number),
      output_files: [described],
      // `auto` falls back to an unconfined run where bubblewrap does not work, and says so.
      warnings: isolated ? [] : [expect.stringContaining('NOT ISOLATED')],
      // The pointer only: the text is in output_files, once.
      primary_output: { ...described, content: undefined },
    },
  };
}

function weatherTool(name: string, result: (input: Record<string, unknown>) => unknown): Tool {
  return tool({
    description: `${name} (weather pool tool)`,
    inputSchema: jsonSchema<Record<string, unknown>>({
      type: 'object',
      properties: { city: { type: 'string' }, name: { type: 'string' }, days: { type: 'number' } },
    }),
    execute: async (input) => result(input),
  });
}

describe('seed flows with the AI SDK mock model', () => {
  it('weather-tools: the pool tools appear after skill_load; ask_name_information stays unavailable with a clear error', async () => {
    const toolPool = Object.fromEntries(
      Object.entries(weatherPoolAnswers).map(([name, answer]) => [name, weatherTool(name, answer)]),
    );
    const { model, calls } = createScriptedModel(weatherConversation);
    const agent = createSkillAgent({ model, repository, toolPool, instructions, loadMode: 'turn' });
    const events = await collect(agent.run({ userId: 'demo', sessionId: 'weather', message: weatherQuestion }));

    const system = await systemMessage(skillToolNames);
    const user = userText(weatherQuestion);
    const loadCall = toolCallMessage('load-1', 'skill_load', { skill: 'weather-tools' });
    const loadResult = toolResultMessage('load-1', 'skill_load', {
      type: 'text',
      value: await weatherLoadResult(repository),
    });

    expect(calls).toHaveLength(3);
    expect(calls[0]?.prompt).toEqual([system, user]);
    expect(calls[0]?.tools?.map((entry) => entry.name)).toEqual(skillToolNames);

    expect(calls[1]?.prompt).toEqual([system, user, loadCall, loadResult]);
    expect(calls[1]?.tools?.map((entry) => entry.name)).toEqual([...skillToolNames, ...weatherSelectedTools]);

    expect(calls[2]?.prompt).toEqual([
      system,
      user,
      loadCall,
      loadResult,
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'weather-1', toolName: 'get_current_weather', input: { city: 'Beijing' } },
          { type: 'tool-call', toolCallId: 'ask-1', toolName: 'ask_name_information', input: { name: 'Alice' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'weather-1',
            toolName: 'get_current_weather',
            output: { type: 'json', value: { city: 'Beijing', temperature: 22, condition: 'Partly Cloudy' } },
          },
          {
            type: 'tool-result',
            toolCallId: 'ask-1',
            toolName: 'ask_name_information',
            output: {
              type: 'error-text',
              value: askNameUnavailable,
            },
          },
        ],
      },
    ]);
    expect(
      events.find((event) => event.type === 'tool-result' && event.toolName === 'ask_name_information'),
    ).toMatchObject({ error: expect.stringContaining('not available') });
    expect(events.at(-1)).toMatchObject({
      type: 'done',
      text: weatherAnswer,
      steps: 3,
    });
  });

  it('user-file-ops: stages the user file, runs the script in the sandbox and returns the output file', async () => {
    const inputFile = join(scratch, 'notes.txt');
    await writeFile(inputFile, 'alpha beta\n\ngamma\ndelta epsilon zeta\n');
    const runtime = createRuntime({ kind: 'auto' });
    const workspaces = createWorkspaceManager({ runtime, repository, baseDir: join(scratch, 'workspaces') });
    const run = {
      skill: 'user-file-ops',
      command: 'bash scripts/summarize_file.sh work/inputs/notes.txt out/notes-summary.txt',
      inputs: [{ from: `host://${inputFile}` }],
      output_files: ['out/notes-summary.txt'],
    };
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'user-file-ops' }, id: 'load-1' }] },
      { toolCalls: [{ name: 'skill_run', input: run, id: 'run-1' }] },
      { text: 'Summary written to out/notes-summary.txt.' },
    ]);
    const agent = createSkillAgent({
      model,
      repository,
      workspaces,
      execution: { hostInputs: [scratch] },
      instructions,
    });
    const events = await collect(agent.run({ userId: 'demo', sessionId: 'files', message: `Summarize ${inputFile}` }));

    const expectedSummary = [
      'File: work/inputs/notes.txt',
      'Lines: 4',
      'Words: 6',
      'Bytes: 37',
      '',
      'First 20 non-empty lines:',
      '     1\talpha beta',
      '     2\tgamma',
      '     3\tdelta epsilon zeta',
      '',
    ].join('\n');
    const system = await systemMessage(executionSkillToolNames);
    const user = userText(`Summarize ${inputFile}`);
    const loadCall = toolCallMessage('load-1', 'skill_load', { skill: 'user-file-ops' });
    const loadResult = toolResultMessage('load-1', 'skill_load', {
      type: 'text',
      value: `[Loaded] user-file-ops\n\n${await skillBody('user-file-ops')}\n\nDocs loaded: none`,
    });
    const runCall = toolCallMessage('run-1', 'skill_run', run);
    const runResult = toolResultMessage(
      'run-1',
      'skill_run',
      runResultValue({ name: 'out/notes-summary.txt', content: expectedSummary }, runtime.isolated),
    );

    expect(calls).toHaveLength(3);
    expect(calls[0]?.prompt).toEqual([system, user]);
    expect(calls[1]?.prompt).toEqual([system, user, loadCall, loadResult]);
    expect(calls[2]?.prompt).toEqual([system, user, loadCall, loadResult, runCall, runResult]);
    for (const call of calls) expect(call.tools?.map((entry) => entry.name)).toEqual(executionSkillToolNames);

    const workspace = await workspaces.workspace({ userId: 'demo', sessionId: 'files' });
    expect(await readFile(join(workspace.root, 'out', 'notes-summary.txt'), 'utf8')).toBe(expectedSummary);
    expect(events.at(-1)).toMatchObject({ type: 'done', text: 'Summary written to out/notes-summary.txt.' });
  });

  it('python-math: load, run fib.py in the sandbox, answer from its output; the next turn starts unloaded (turn mode)', async () => {
    const sessions = createMemorySessionStore();
    const runtime = createRuntime({ kind: 'auto' });
    const workspaces = createWorkspaceManager({ runtime, repository, baseDir: join(scratch, 'workspaces-math') });
    const { model, calls } = createScriptedModel(pythonMathConversation);
    const agent = createSkillAgent({ model, repository, workspaces, sessions, instructions });
    await collect(agent.run({ userId: 'demo', sessionId: 'math', message: 'First 10 Fibonacci numbers?' }));

    const system = await systemMessage(executionSkillToolNames);
    const user = userText('First 10 Fibonacci numbers?');
    const loadCall = toolCallMessage('load-1', 'skill_load', { skill: 'python-math', docs: ['docs/usage.md'] });
    const loadResult = toolResultMessage('load-1', 'skill_load', {
      type: 'text',
      value: await pythonMathLoadResult(repository),
    });
    const runCall = toolCallMessage('run-1', 'skill_run', pythonMathRunInput);
    const runResult = toolResultMessage(
      'run-1',
      'skill_run',
      runResultValue({ name: 'out/fib.txt', content: fibonacciTen }, runtime.isolated),
    );

    expect(calls).toHaveLength(3);
    expect(calls[0]?.prompt).toEqual([system, user]);
    expect(calls[1]?.prompt).toEqual([system, user, loadCall, loadResult]);
    expect(calls[2]?.prompt).toEqual([system, user, loadCall, loadResult, runCall, runResult]);

    await collect(agent.run({ userId: 'demo', sessionId: 'math', message: 'Thanks!' }));
    // The stored transcript keeps the stub; turn mode unloaded the skill, so nothing is materialised.
    expect(calls[3]?.prompt).toEqual([
      system,
      user,
      loadCall,
      toolResultMessage('load-1', 'skill_load', { type: 'text', value: 'loaded: python-math' }),
      runCall,
      runResult,
      { role: 'assistant', content: [{ type: 'text', text: 'The first ten Fibonacci numbers end with 34.' }] },
      userText('Thanks!'),
    ]);
    for (const call of calls) expect(call.tools?.map((entry) => entry.name)).toEqual(executionSkillToolNames);
    const stored = await sessions.getSession({ userId: 'demo', sessionId: 'math' });
    expect(Object.keys(stored?.state ?? {}).filter((key) => key.startsWith('temp:skill:'))).toEqual([]);
  });
});
