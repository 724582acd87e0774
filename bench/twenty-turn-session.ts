// The scripted 20-turn session every token and prompt-cache comparison runs (createSkillAgent with
// and without compaction, and each framework adapter against its framework's own skills feature),
// so all of them are measured on the same conversation.
import { fileURLToPath } from 'node:url';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createSkillAgent } from '../src/integrations/ai-sdk/index.js';
import { FsSkillRepository } from '../src/repository/fs-skill-repository.js';
import {
  type RecordedRequest,
  type ScriptedResponse,
  startScriptedOpenAiServer,
} from '../test/support/scripted-openai-server.js';

export interface ScriptedTurn {
  message: string;
  responses: ScriptedResponse[];
}

/**
 * What the provider tokenises of one request, in the order a provider's prompt puts it: the tool
 * definitions first, then the messages. A tool list that changes (dynamic tool selection) thus
 * costs the prefix, as it does at the provider.
 */
export function serialisedRequest(request: RecordedRequest): string {
  return JSON.stringify({ tools: request.body.tools ?? [], messages: request.body.messages });
}

/** Characters two serialised requests share from the start: what a provider's prefix cache could reuse. */
export function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index += 1;
  return index;
}

/**
 * Twenty turns in `session` load mode (loaded skills stay until compacted): three skills loaded
 * and used early, one read in full, long stretches of plain chat, one skill loaded again later.
 */
export function twentyTurnSession(): ScriptedTurn[] {
  const chat = (message: string) => ({ message, responses: [{ text: `Noted: ${message}` }] });
  const turns = [
    {
      message: 'How do I count words with python-math?',
      responses: [
        { toolCalls: [{ name: 'skill_load', arguments: { skill: 'python-math' } }] },
        {
          toolCalls: [
            {
              name: 'skill_select_docs',
              arguments: { skill: 'python-math', docs: ['docs/usage.md'], mode: 'replace' },
            },
          ],
        },
        { text: 'Run python3 scripts/stats.py work/inputs/notes.txt.' },
      ],
    },
    {
      message: 'Show me the stats script.',
      responses: [
        { toolCalls: [{ name: 'skill_read', arguments: { skill: 'python-math', path: 'scripts/stats.py' } }] },
        { text: 'It counts words, lines and characters.' },
      ],
    },
    {
      message: 'Which units does weather-tools use?',
      responses: [
        { toolCalls: [{ name: 'skill_load', arguments: { skill: 'weather-tools' } }] },
        { toolCalls: [{ name: 'skill_read', arguments: { skill: 'weather-tools', path: 'docs/units.md' } }] },
        { text: 'Celsius.' },
      ],
    },
    ...['thanks', 'what about tomorrow?', 'and the weekend?', 'ok', 'something else now'].map(chat),
    {
      message: 'Summarise a file with file-ops.',
      responses: [
        { toolCalls: [{ name: 'skill_load', arguments: { skill: 'file-ops' } }] },
        { toolCalls: [{ name: 'skill_read', arguments: { skill: 'file-ops' } }] },
        { text: 'Run scripts/summarize.sh on it.' },
      ],
    },
    ...['great', 'one question', 'never mind', 'all fine'].map(chat),
    {
      message: 'Back to python-math: primes below 50?',
      responses: [
        { toolCalls: [{ name: 'skill_load', arguments: { skill: 'python-math' } }] },
        { text: 'Run python3 scripts/primes.py 50.' },
      ],
    },
    ...['thanks', 'bye for now', 'one more thing', 'no, forget it', 'really bye', 'done'].map(chat),
  ];
  if (turns.length !== 20) throw new Error(`the scripted session has ${turns.length} turns, not 20`);
  return turns;
}

/** The example skills every run of the session uses. */
export const sessionSkills = fileURLToPath(new URL('../examples/skills/', import.meta.url));

/** The instructions every agent of the comparison gets. */
export const sessionInstructions = 'You are a helpful assistant.';

/**
 * The session through `createSkillAgent` (tool-result materialisation, session load mode) and the
 * OpenAI-compatible provider against the scripted server on loopback: the reference every adapter
 * is compared with. Returns every request the server received.
 */
export async function throughSkillAgent(turns: readonly ScriptedTurn[]): Promise<RecordedRequest[]> {
  const repository = await FsSkillRepository.open({ roots: [sessionSkills] });
  const server = await startScriptedOpenAiServer(turns.flatMap((turn) => turn.responses));
  try {
    const provider = createOpenAICompatible({ name: 'bench', baseURL: server.baseUrl, apiKey: 'bench' });
    const agent = createSkillAgent({
      model: provider.chatModel('bench-model'),
      repository,
      materialize: 'tool-result',
      loadMode: 'session',
      instructions: sessionInstructions,
    });
    for (const turn of turns)
      for await (const _ of agent.run({ userId: 'bench', sessionId: 'twenty', message: turn.message }));
    return [...server.requests];
  } finally {
    await server.close();
  }
}
