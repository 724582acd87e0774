import { fileURLToPath } from 'node:url';
import type { SkillRepository } from '../../src/repository/types.js';
import type { RecordedRequest, ScriptedResponse } from './scripted-openai-server.js';

/**
 * The scripted conversations over examples/skills that createSkillAgent passes (test/integration/
 * seed-flows.integration.test.ts) and that every adapter must pass too, written once so that each
 * framework's test replays the same model turns and expects the same content: the steps in the AI
 * SDK scripted model's shape, `forScriptedServer` turns them into the OpenAI-compatible server's.
 */

export const exampleSkillsRoot = fileURLToPath(new URL('../../examples/skills/', import.meta.url));
export const assistantInstructions = 'You are a helpful assistant.';

/** One model turn: text, or tool calls each with the id the test looks its result up by. */
export type ConversationStep =
  | { text: string; toolCalls?: undefined }
  | { text?: undefined; toolCalls: Array<{ id: string; name: string; input: Record<string, unknown> }> };

/** The tools offered with a tool pool and no workspace (the default profile). */
export const skillToolNames = [
  'skill_load',
  'skill_list_docs',
  'skill_select_docs',
  'skill_read',
  'skill_list_tools',
  'skill_select_tools',
];

/** The tools offered with a workspace and no tool pool. */
export const executionSkillToolNames = [
  'skill_load',
  'skill_list_docs',
  'skill_select_docs',
  'skill_read',
  'skill_run',
  'workspace_exec',
];

export const pythonMathRunInput = {
  skill: 'python-math',
  command: 'python3 scripts/fib.py 10 > out/fib.txt',
  output_files: ['out/fib.txt'],
};
/** What `fib.py 10` writes to out/fib.txt. */
export const fibonacciTen = '0\n1\n1\n2\n3\n5\n8\n13\n21\n34\n';

/** python-math: load it with its usage doc, run fib.py in the workspace, answer; then a second turn's answer. */
export const pythonMathConversation: ConversationStep[] = [
  { toolCalls: [{ id: 'load-1', name: 'skill_load', input: { skill: 'python-math', docs: ['docs/usage.md'] } }] },
  { toolCalls: [{ id: 'run-1', name: 'skill_run', input: pythonMathRunInput }] },
  { text: 'The first ten Fibonacci numbers end with 34.' },
  { text: 'You are welcome.' },
];

/** The skill_load result the model reads after the first step of `pythonMathConversation`. */
export async function pythonMathLoadResult(repository: SkillRepository): Promise<string> {
  const body = (await repository.get('python-math')).body.trim();
  const usage = (await repository.readFile('python-math', 'docs/usage.md')).toString('utf8').trim();
  return `[Loaded] python-math\n\n${body}\n\nDocs loaded: docs/usage.md\n\n[Doc] docs/usage.md\n\n${usage}`;
}

export const weatherQuestion = "What's the weather in Beijing? Also ask about Alice.";
export const weatherAnswer = 'Beijing is 22°C and partly cloudy. I cannot look up people.';

/** weather-tools: load it, call a pool tool it selects and one no skill lists, answer. */
export const weatherConversation: ConversationStep[] = [
  { toolCalls: [{ id: 'load-1', name: 'skill_load', input: { skill: 'weather-tools' } }] },
  {
    toolCalls: [
      { id: 'weather-1', name: 'get_current_weather', input: { city: 'Beijing' } },
      { id: 'ask-1', name: 'ask_name_information', input: { name: 'Alice' } },
    ],
  },
  { text: weatherAnswer },
];

/**
 * What each tool of the weather pool answers, by name; each framework wraps them in its own tool
 * type. weather-tools selects the first three; `ask_name_information` is in the pool but no skill
 * lists it, so it is never offered.
 */
export const weatherPoolAnswers: Record<string, (input: Record<string, unknown>) => unknown> = {
  get_current_weather: ({ city }) => ({ city, temperature: 22, condition: 'Partly Cloudy' }),
  get_weather_forecast: ({ city, days }) => ({ city, days }),
  search_city_by_name: ({ name }) => ({ name, country: 'China' }),
  ask_name_information: ({ name }) => ({ name, age: 20 }),
};
export const weatherSelectedTools = ['get_current_weather', 'get_weather_forecast', 'search_city_by_name'];

/** The error result of the `ask_name_information` call in `weatherConversation`. */
export const askNameUnavailable =
  'tool "ask_name_information" is not available: no skill lists it in its Tools: section, so it cannot be used in this conversation. Continue with the tools you have.';

/** The skill_load result the model reads after the first step of `weatherConversation`. */
export async function weatherLoadResult(repository: SkillRepository): Promise<string> {
  const body = (await repository.get('weather-tools')).body.trim();
  return `[Loaded] weather-tools\n\n${body}\n\nDocs loaded: none\nTools selected: ${weatherSelectedTools.join(', ')}`;
}

/** The steps as the scripted OpenAI-compatible server's responses (test/support/scripted-openai-server.ts). */
export function forScriptedServer(steps: readonly ConversationStep[]): ScriptedResponse[] {
  return steps.map((step) =>
    step.toolCalls === undefined
      ? { text: step.text }
      : { toolCalls: step.toolCalls.map(({ id, name, input }) => ({ id, name, arguments: input })) },
  );
}

/** The names of the tools a recorded request offered, in the order sent. */
export function offeredToolNames(request: RecordedRequest | undefined): string[] {
  return (request?.body.tools ?? []).map((entry) => entry.function.name);
}

/** The content of the tool message answering `callId` in a recorded request, as text (undefined when absent). */
export function toolResultText(request: RecordedRequest | undefined, callId: string): string | undefined {
  const message = request?.body.messages.find((entry) => entry.role === 'tool' && entry.tool_call_id === callId);
  if (message === undefined) return undefined;
  return typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
}

/** The system message's text in a recorded request: a string, or its text blocks one after another ('' without one). */
export function systemPromptText(request: RecordedRequest | undefined): string {
  const first = request?.body.messages[0];
  if (first?.role !== 'system') return '';
  const content = first.content as Array<{ text: string }> | string;
  return Array.isArray(content) ? content.map((block) => block.text).join('') : content;
}
