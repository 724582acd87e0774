import { countTokens } from '../src/disclosure/token-counter.js';
import { createSkillMiddleware } from '../src/integrations/langchain/index.js';
import { FsSkillRepository } from '../src/repository/fs-skill-repository.js';
import {
  type RecordedRequest,
  type ScriptedResponse,
  startScriptedOpenAiServer,
} from '../test/support/scripted-openai-server.js';
import {
  commonPrefixLength,
  sessionSkills as examples,
  sessionInstructions as instructions,
  type ScriptedTurn,
  serialisedRequest,
  throughSkillAgent,
  twentyTurnSession,
} from './twenty-turn-session.js';

interface Figures {
  requests: number;
  meanTokens: number;
  totalTokens: number;
  meanShare: number;
  /** Tokens after the prefix shared with the previous request (all of the first): what a prefix cache cannot serve. */
  uncachedTokens: number;
}

function measure(requests: readonly RecordedRequest[]): Figures {
  const texts = requests.map(serialisedRequest);
  let tokens = 0;
  let shareSum = 0;
  let uncachedTokens = 0;
  texts.forEach((text, index) => {
    const count = countTokens(text);
    tokens += count;
    if (index === 0) {
      uncachedTokens += count;
      return;
    }
    const prefix = commonPrefixLength(texts[index - 1]!, text);
    shareSum += prefix / text.length;
    uncachedTokens += count - countTokens(text.slice(0, prefix));
  });
  return {
    requests: texts.length,
    meanTokens: tokens / texts.length,
    totalTokens: tokens,
    meanShare: shareSum / Math.max(1, texts.length - 1),
    uncachedTokens,
  };
}

async function throughLangChain(
  turns: ScriptedTurn[],
  middlewareOf: () => Promise<unknown[]>,
  systemPrompt: string | undefined,
): Promise<RecordedRequest[]> {
  const { createAgent } = await import('langchain');
  const { ChatOpenAI } = await import('@langchain/openai');
  const { MemorySaver } = await import('@langchain/langgraph');
  const server = await startScriptedOpenAiServer(turns.flatMap((turn) => turn.responses));
  try {
    const model = new ChatOpenAI({ model: 'bench-model', apiKey: 'bench', configuration: { baseURL: server.baseUrl } });
    // The middleware lists differ per agent; only invoke is used here.
    const agent = createAgent({
      model,
      tools: [],
      middleware: (await middlewareOf()) as never,
      checkpointer: new MemorySaver(),
      ...(systemPrompt !== undefined ? { systemPrompt } : {}),
    }) as unknown as { invoke(input: unknown, config: unknown): Promise<unknown> };
    for (const turn of turns)
      await agent.invoke(
        { messages: [{ role: 'user', content: turn.message }] },
        { configurable: { thread_id: 'bench' }, recursionLimit: 100 },
      );
    return [...server.requests];
  } finally {
    await server.close();
  }
}

/** The session in deepagents' terms: a skill is loaded by reading its SKILL.md, a doc or file by reading it. */
function asDeepAgentsSession(turns: ScriptedTurn[]): ScriptedTurn[] {
  const path = (skill: string, file = 'SKILL.md') => `/${skill}/${file}`;
  const translate = (response: ScriptedResponse): ScriptedResponse => {
    if (response.toolCalls === undefined) return response;
    return {
      ...response,
      toolCalls: response.toolCalls.map((call) => {
        const input = call.arguments as { skill: string; path?: string; docs?: string[] };
        if (call.name === 'skill_select_docs')
          return { name: 'read_file', arguments: { file_path: path(input.skill, input.docs![0]) } };
        if (call.name === 'skill_read')
          return { name: 'read_file', arguments: { file_path: path(input.skill, input.path) } };
        return { name: 'read_file', arguments: { file_path: path(input.skill) } };
      }),
    };
  };
  return turns.map((turn) => ({ ...turn, responses: turn.responses.map(translate) }));
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

export async function run(): Promise<void> {
  const peers = await Promise.all(
    ['langchain', '@langchain/openai', '@langchain/langgraph', 'deepagents'].map((name) =>
      import(name).catch(() => undefined),
    ),
  );
  if (peers.some((peer) => peer === undefined)) {
    console.log('langchain, @langchain/openai, @langchain/langgraph or deepagents is not installed: skipped');
    return;
  }
  const turns = twentyTurnSession();
  const repository = await FsSkillRepository.open({ roots: [examples] });
  const skillAgent = await throughSkillAgent(turns);
  const middleware = await throughLangChain(
    turns,
    async () => [createSkillMiddleware({ repository, loadMode: 'session', materialize: 'tool-result', instructions })],
    undefined,
  );
  const deepAgents = await throughLangChain(
    asDeepAgentsSession(turns),
    async () => {
      const { FilesystemBackend, createFilesystemMiddleware, createSkillsMiddleware } = await import('deepagents');
      const backend = new FilesystemBackend({ rootDir: examples, virtualMode: true });
      return [createSkillsMiddleware({ backend, sources: ['/'] }), createFilesystemMiddleware({ backend })];
    },
    instructions,
  );
  const rows: Array<[string, Figures]> = [
    ['createSkillAgent (AI SDK)', measure(skillAgent)],
    ['createAgent + skillbox middleware', measure(middleware)],
    ["createAgent + deepagents' SkillsMiddleware", measure(deepAgents)],
  ];
  console.log(
    `scripted session: ${turns.length} turns, session load mode, tool-result materialisation; o200k_base tokens of tool definitions + messages per request`,
  );
  console.log(
    'agent                                       requests  mean tokens/request  total tokens  mean prefix share  uncached tokens',
  );
  for (const [name, figures] of rows)
    console.log(
      `${name.padEnd(44)}${String(figures.requests).padStart(8)}  ${figures.meanTokens.toFixed(0).padStart(19)}  ${String(figures.totalTokens).padStart(12)}  ${percent(figures.meanShare).padStart(17)}  ${String(figures.uncachedTokens).padStart(15)}`,
    );
}
