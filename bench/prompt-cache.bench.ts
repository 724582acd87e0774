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
import type { SkillCompactionPolicy } from '../src/integrations/ai-sdk/loaded-content-compaction.js';
import { FsSkillRepository } from '../src/repository/fs-skill-repository.js';
import {
  type RecordedRequest,
  type ScriptedResponse,
  startScriptedOpenAiServer,
} from '../test/support/scripted-openai-server.js';
import { pairedRatio, reportRatio } from './bench-support.js';
import { commonPrefixLength, twentyTurnSession } from './twenty-turn-session.js';

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
      repository,
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
  await compactionSession();
}

// ---- Compaction on vs off over a 20-turn scripted session (createSkillAgent `compaction`) ----

/** The compaction measured: a skill's content goes after three whole turns without it. */
const compactionPolicy: SkillCompactionPolicy = { unusedTurns: 3 };

interface SessionRun {
  requests: RecordedRequest[];
  next(): Promise<boolean>;
  close(): Promise<void>;
}

async function startCompactionSession(compaction: SkillCompactionPolicy | undefined): Promise<SessionRun> {
  const turns = twentyTurnSession();
  const repository = await FsSkillRepository.open({ roots: [examples] });
  const server = await startScriptedOpenAiServer(turns.flatMap((turn) => turn.responses));
  const provider = createOpenAICompatible({
    name: 'bench',
    baseURL: server.baseUrl,
    apiKey: 'bench',
    includeUsage: true,
  });
  const agent = createSkillAgent({
    model: provider.chatModel('bench-model'),
    repository,
    materialize: 'tool-result',
    loadMode: 'session',
    instructions: 'You are a helpful assistant.',
    ...(compaction !== undefined ? { compaction } : {}),
  });
  let turn = 0;
  return {
    requests: server.requests,
    async next() {
      const current = turns[turn];
      if (current === undefined) return false;
      turn += 1;
      for await (const _ of agent.run({ userId: 'bench', sessionId: 'compaction', message: current.message }));
      return true;
    },
    close: () => server.close(),
  };
}

/**
 * The same 20 turns with compaction off and on, run turn by turn in alternation. Prompt tokens are
 * what each request sends; uncached tokens are what is left after the longest byte-identical
 * prefix shared with the previous request (what a provider's prefix cache could not reuse).
 */
export async function compactionSession(): Promise<void> {
  const off = await startCompactionSession(undefined);
  const on = await startCompactionSession(compactionPolicy);
  try {
    for (;;) {
      const more = await off.next();
      await on.next();
      if (!more) break;
    }
  } finally {
    await off.close();
    await on.close();
  }
  const serialise = (requests: RecordedRequest[]) => requests.map((request) => JSON.stringify(request.body.messages));
  const offTexts = serialise(off.requests);
  const onTexts = serialise(on.requests);
  if (offTexts.length !== onTexts.length) throw new Error('the two sessions made different numbers of requests');
  const perRequest = (texts: string[]) =>
    texts.map((text, index) => {
      const prompt = countTokens(text);
      const prefix = index === 0 ? 0 : commonPrefixLength(texts[index - 1]!, text);
      return {
        prompt,
        uncached: prompt - countTokens(text.slice(0, prefix)),
        share: index === 0 ? 0 : prefix / text.length,
      };
    });
  const offFigures = perRequest(offTexts);
  const onFigures = perRequest(onTexts);
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const offFigure = measure(offTexts);
  const onFigure = measure(onTexts);
  console.log(
    `\ncompaction: 20 turns, ${offTexts.length} model requests each, session load mode, tool-result, unusedTurns ${compactionPolicy.unusedTurns}, o200k_base tokens`,
  );
  console.log('compaction  prompt tokens  uncached tokens  mean prefix share  last request tokens');
  for (const [name, figures, summary] of [
    ['off', offFigures, offFigure],
    ['on', onFigures, onFigure],
  ] as const) {
    console.log(
      `${name.padEnd(10)}${String(sum(figures.map((f) => f.prompt))).padStart(15)}${String(sum(figures.map((f) => f.uncached))).padStart(17)}${percent(summary.meanShare).padStart(19)}${String(figures.at(-1)!.prompt).padStart(21)}`,
    );
  }
  console.log(`prompt tokens per request (off): ${offFigures.map((f) => f.prompt).join(' ')}`);
  console.log(`prompt tokens per request (on):  ${onFigures.map((f) => f.prompt).join(' ')}`);
  const promptRatio = pairedRatio(
    onFigures.map((f) => f.prompt),
    offFigures.map((f) => f.prompt),
  );
  reportRatio({
    benchmark: 'prompt-cache',
    comparison: 'compaction on/off prompt tokens per request (20 turns)',
    ratio: promptRatio,
    goal: '< 1',
  });
  reportRatio({
    benchmark: 'prompt-cache',
    comparison: 'compaction on/off total uncached tokens (20 turns)',
    ratio: pairedRatio([sum(onFigures.map((f) => f.uncached))], [sum(offFigures.map((f) => f.uncached))]),
    goal: '<= 1',
  });
  reportRatio({
    benchmark: 'prompt-cache',
    comparison: 'compaction on/off mean prefix share (20 turns)',
    ratio: pairedRatio([onFigure.meanShare], [offFigure.meanShare]),
    goal: '>= 0.95',
  });
}
