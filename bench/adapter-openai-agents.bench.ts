// Tokens per request and prompt-cache prefix share of the scripted 20-turn session, through the
// OpenAI Agents SDK's own runner with skillbox/openai-agents, against the same session through
// createSkillAgent (AI SDK), in the same run, both against the same scripted OpenAI-compatible
// server on loopback. Then the SDK's own skills feature (a SandboxAgent with the `skills`
// capability, lazily loaded from the same folder, read through its `exec_command` shell on the
// host's unix_local sandbox) on the same twenty user messages, its tool calls translated:
// skill_load -> load_skill + cat SKILL.md, skill_select_docs / skill_read -> cat the file.
// Counts are o200k_base tokens of what each request sends; nothing here is timed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countTokens } from '../src/disclosure/token-counter.js';
import { createAgentSkills } from '../src/integrations/openai-agents/index.js';
import { FsSkillRepository } from '../src/repository/fs-skill-repository.js';
import { createMemorySessionStore } from '../src/sessions/memory-session-store.js';
import {
  type RecordedRequest,
  type ScriptedResponse,
  startScriptedOpenAiServer,
} from '../test/support/scripted-openai-server.js';
import { pairedRatio, reportRatio } from './bench-support.js';
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
  promptTokens: number[];
  meanShare: number;
}

function measure(requests: readonly RecordedRequest[]): Figures {
  const texts = requests.map(serialisedRequest);
  let shareSum = 0;
  texts.forEach((text, index) => {
    if (index > 0) shareSum += commonPrefixLength(texts[index - 1]!, text) / text.length;
  });
  return {
    requests: texts.length,
    promptTokens: texts.map((text) => countTokens(text)),
    meanShare: shareSum / Math.max(1, texts.length - 1),
  };
}

async function throughAdapter(turns: readonly ScriptedTurn[]): Promise<RecordedRequest[]> {
  const sdk = await import('@openai/agents');
  const { OpenAIProvider } = await import('@openai/agents-openai');
  sdk.setTracingDisabled(true);
  const repository = await FsSkillRepository.open({ roots: [examples] });
  const server = await startScriptedOpenAiServer(turns.flatMap((turn) => turn.responses));
  try {
    const model = await new OpenAIProvider({ baseURL: server.baseUrl, apiKey: 'bench', useResponses: false }).getModel(
      'bench-model',
    );
    const skills = createAgentSkills({
      repository,
      sessions: createMemorySessionStore(),
      materialize: 'tool-result',
      loadMode: 'session',
    });
    const agent = new sdk.Agent({ ...skills.forAgent('assistant', { instructions }), model });
    const session = await skills.openSession({ userId: 'bench', sessionId: 'twenty' });
    for (const turn of turns) await sdk.run(agent, turn.message, skills.runOptions(session));
    return [...server.requests];
  } finally {
    await server.close();
  }
}

/**
 * The same conversation for the SDK's own skills: its tools instead of skillbox's. Its sandbox
 * does not outlive a run (a second run on the same sandbox session is refused: "skills lazyFrom
 * path overlaps existing manifest entries"), so a turn that reads a skill it did not load itself
 * loads it first, as a model would have to.
 */
function sandboxScript(turns: readonly ScriptedTurn[]): ScriptedTurn[] {
  const cat = (path: string) => ({ name: 'exec_command', arguments: { cmd: `cat ${path}` } });
  const load = (skill: string) => ({ toolCalls: [{ name: 'load_skill', arguments: { skill_name: skill } }] });
  return turns.map((turn) => {
    const loaded = new Set<string>();
    return {
      message: turn.message,
      responses: turn.responses.flatMap((response): ScriptedResponse[] => {
        const call = response.toolCalls?.[0];
        if (call === undefined) return [response];
        const input = call.arguments as { skill: string; docs?: string[]; path?: string };
        const first = loaded.has(input.skill) ? [] : [load(input.skill)];
        loaded.add(input.skill);
        if (call.name === 'skill_load') return [...first, { toolCalls: [cat(`.agents/${input.skill}/SKILL.md`)] }];
        const path = call.name === 'skill_select_docs' ? input.docs?.[0] : (input.path ?? 'SKILL.md');
        return [...first, { toolCalls: [cat(`.agents/${input.skill}/${path}`)] }];
      }),
    };
  });
}

async function throughSdkSkills(turns: readonly ScriptedTurn[]): Promise<RecordedRequest[] | string> {
  const sdk = await import('@openai/agents');
  const sandbox = await import('@openai/agents/sandbox/local');
  const { OpenAIProvider } = await import('@openai/agents-openai');
  const script = sandboxScript(turns);
  const server = await startScriptedOpenAiServer(script.flatMap((turn) => turn.responses));
  const workspace = await mkdtemp(join(tmpdir(), 'skillbox-bench-sdk-skills-'));
  try {
    const model = await new OpenAIProvider({ baseURL: server.baseUrl, apiKey: 'bench', useResponses: false }).getModel(
      'bench-model',
    );
    const agent = new sandbox.SandboxAgent({
      name: 'assistant',
      instructions,
      model,
      capabilities: [sandbox.shell(), sandbox.skills({ lazyFrom: sandbox.localDirLazySkillSource(examples) })],
    });
    const session = new sdk.MemorySession();
    const client = new sandbox.UnixLocalSandboxClient();
    for (const turn of script)
      await sdk.run(agent, turn.message, { session, sandbox: { client, manifest: { root: workspace } } });
    return [...server.requests];
  } catch (error) {
    return `the SDK's sandbox agent did not run here: ${(error as Error).message.split('\n')[0]}`;
  } finally {
    await server.close();
    await rm(workspace, { recursive: true, force: true });
  }
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

function row(name: string, figures: Figures): string {
  const total = figures.promptTokens.reduce((sum, tokens) => sum + tokens, 0);
  return `${name.padEnd(44)}${String(figures.requests).padStart(8)}${String(total).padStart(14)}${String(Math.round(total / figures.requests)).padStart(12)}${percent(figures.meanShare).padStart(19)}`;
}

export async function run(): Promise<void> {
  const turns = twentyTurnSession();
  const skillAgent = measure(await throughSkillAgent(turns));
  const adapter = measure(await throughAdapter(turns));
  const sdkSkills = await throughSdkSkills(turns);
  console.log(
    '20-turn scripted session, session load mode, tool-result materialisation; o200k_base tokens of {tools, messages} as sent',
  );
  console.log('through                                     requests  prompt tokens  per request  mean prefix share');
  console.log(row('createSkillAgent (AI SDK)', skillAgent));
  console.log(row('skillbox/openai-agents (SDK run())', adapter));
  if (typeof sdkSkills === 'string') console.log(sdkSkills);
  else {
    console.log(row("SDK's own skills (SandboxAgent, skills())", measure(sdkSkills)));
    // The shell really read the skills: the body of python-math reached the model through `cat`.
    const last = JSON.stringify(sdkSkills.at(-1)?.body.messages ?? []);
    const failedReads = (last.match(/No such file/g) ?? []).length;
    console.log(
      `SDK skills: python-math's body ${last.includes('Short standard-library Python scripts') ? 'was' : 'was NOT'} read through exec_command; ${failedReads} reads failed`,
    );
  }
  console.log(`tokens per request, createSkillAgent: ${skillAgent.promptTokens.join(' ')}`);
  console.log(`tokens per request, openai-agents:    ${adapter.promptTokens.join(' ')}`);
  if (typeof sdkSkills !== 'string')
    console.log(`tokens per request, SDK skills:       ${measure(sdkSkills).promptTokens.join(' ')}`);
  if (adapter.requests === skillAgent.requests)
    reportRatio({
      benchmark: 'adapter-openai-agents',
      comparison: 'openai-agents / createSkillAgent prompt tokens per request (20 turns)',
      ratio: pairedRatio(adapter.promptTokens, skillAgent.promptTokens),
    });
  reportRatio({
    benchmark: 'adapter-openai-agents',
    comparison: 'openai-agents / createSkillAgent mean prefix share (20 turns)',
    ratio: pairedRatio([adapter.meanShare], [skillAgent.meanShare]),
    goal: '>= 0.95',
  });
}
