// Prompt-cache friendliness of the two materialisation modes. A scripted multi-step, multi-turn
// conversation runs through the real agent, the real OpenAI-compatible provider and HTTP on
// loopback; for every request after the first, we measure which share of its messages (the bytes
// the provider tokenises, serialised as sent) is a byte-identical prefix of the previous request:
// what a provider's prefix cache could reuse. The reference is the plain transcript with no skill
// content at all (append-only), the most any mode can reach. No npm peer materialises loaded skills
// per request, so there is no peer figure to compare with.
import { fileURLToPath } from 'node:url';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { countTokens } from '../src/disclosure/token-counter.js';
import { createSkillAgent } from '../src/integrations/ai-sdk/index.js';
import { FsSkillRepository } from '../src/repository/fs-skill-repository.js';
import {
  type RecordedRequest,
  type ScriptedResponse,
  startScriptedOpenAiServer,
} from '../test/support/scripted-openai-server.js';

const examples = fileURLToPath(new URL('../examples/skills/', import.meta.url));

/** Three turns: load + select a doc + answer; load another skill + read a file + answer; answer. */
const turns: Array<{ message: string; responses: ScriptedResponse[] }> = [
  {
    message: 'How do I count words with python-math?',
    responses: [
      { toolCalls: [{ name: 'skill_load', arguments: { skill: 'python-math' } }] },
      {
        toolCalls: [
          { name: 'skill_select_docs', arguments: { skill: 'python-math', docs: ['docs/usage.md'], mode: 'replace' } },
        ],
      },
      { text: 'Run python3 scripts/stats.py work/inputs/notes.txt > out/stats.json.' },
    ],
  },
  {
    message: 'And which units does weather-tools use?',
    responses: [
      { toolCalls: [{ name: 'skill_load', arguments: { skill: 'weather-tools' } }] },
      { toolCalls: [{ name: 'skill_read', arguments: { skill: 'weather-tools', path: 'docs/units.md' } }] },
      { text: 'Celsius, rounded as docs/units.md says.' },
    ],
  },
  { message: 'Thanks, that is all.', responses: [{ text: 'You are welcome.' }] },
];

function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index += 1;
  return index;
}

interface Figures {
  requests: number;
  meanShare: number;
  promptTokens: number;
  reusableTokens: number;
}

function measure(serialised: string[]): Figures {
  let shareSum = 0;
  let promptTokens = 0;
  let reusableTokens = 0;
  serialised.forEach((text, index) => {
    promptTokens += countTokens(text);
    if (index === 0) return;
    const prefix = commonPrefixLength(serialised[index - 1]!, text);
    shareSum += prefix / text.length;
    reusableTokens += countTokens(text.slice(0, prefix));
  });
  return { requests: serialised.length, meanShare: shareSum / (serialised.length - 1), promptTokens, reusableTokens };
}

async function conversation(materialize: 'system' | 'tool-result'): Promise<RecordedRequest[]> {
  const repository = await FsSkillRepository.open({ roots: [examples] });
  const server = await startScriptedOpenAiServer(turns.flatMap((turn) => turn.responses));
  try {
    const provider = createOpenAICompatible({
      name: 'bench',
      baseURL: server.baseUrl,
      apiKey: 'bench',
      includeUsage: true,
    });
    const agent = createSkillAgent({
      model: provider.chatModel('bench-model'),
      skills: repository,
      materialize,
      loadMode: 'turn',
      instructions: 'You are a helpful assistant.',
    });
    for (const turn of turns)
      for await (const _ of agent.run({ userId: 'bench', sessionId: `cache-${materialize}`, message: turn.message }));
    return [...server.requests];
  } finally {
    await server.close();
  }
}

/** The same conversation as a plain append-only transcript: what the provider would get with no skill content. */
function appendOnly(requests: RecordedRequest[]): string[] {
  const strip = (messages: Array<Record<string, unknown>>) =>
    messages.map((message) =>
      message.role === 'tool' && typeof message.content === 'string' && message.content.startsWith('[Loaded]')
        ? { ...message, content: 'loaded' }
        : message,
    );
  return requests.map((request) =>
    JSON.stringify(strip(request.body.messages.filter((message, index) => !(message.role === 'system' && index > 0)))),
  );
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

export async function run(): Promise<void> {
  const system = await conversation('system');
  const toolResult = await conversation('tool-result');
  const rows: Array<[string, Figures]> = [
    ['system', measure(system.map((request) => JSON.stringify(request.body.messages)))],
    ['tool-result', measure(toolResult.map((request) => JSON.stringify(request.body.messages)))],
    ['append-only transcript (ceiling)', measure(appendOnly(toolResult))],
  ];
  const ceiling = rows[2]![1].meanShare;
  console.log(
    `scripted conversation: ${turns.length} turns, ${system.length} model requests, turn load mode, o200k_base tokens`,
  );
  console.log(
    'mode                               requests  mean prefix share  reusable/prompt tokens  share vs ceiling',
  );
  for (const [name, figures] of rows) {
    console.log(
      `${name.padEnd(35)}${String(figures.requests).padStart(8)}  ${percent(figures.meanShare).padStart(17)}  ${`${figures.reusableTokens}/${figures.promptTokens}`.padStart(22)}  ${(figures.meanShare / ceiling).toFixed(3).padStart(16)}`,
    );
  }
  console.log(`tool-result / system mean prefix share: ${(rows[1]![1].meanShare / rows[0]![1].meanShare).toFixed(2)}x`);
}
