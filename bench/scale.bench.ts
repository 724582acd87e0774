// Durable turns at scale (issue 33), on real processes on loopback: one Restate server, agent
// workers (bench/scale-agent-worker.ts) behind haproxy speaking h2c, `skillbox worker` sandbox
// workers behind haproxy pinning each workspace (`balance hdr(x-skillbox-workspace)`), PostgreSQL
// (sessions, run ledger), Redis (turn feed), and the scripted OpenAI-compatible model with every
// step held a fixed time, standing for a model. Each turn is three model steps: skill_load,
// skill_run of a one-line script on a sandbox worker, the answer.
//   - load: SESSIONS sessions at once, TURNS turns each, with 1 and 2 agent workers and 1 and 2
//     sandbox workers: turns per second, p50/p95 turn latency;
//   - a durable turn against createSkillAgent in this process (same model, skills, local runtime and
//     SQLite store on both sides), paired and interleaved;
//   - failover: kill -9 of an agent worker while turns wait on their last model step, and the time
//     until every turn it held completed on the other worker;
//   - snapshot and restore of a 50 MB workspace against tar (workspace-snapshot.bench.ts).
// Each section that lacks a service says so in one line and the rest go on. Counts (model requests
// per turn, steps requested again, scripts that ran) are printed beside the times: they show the
// work done per turn whatever the load. Figures only, nothing fails on a time.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createSkillAgent } from '../src/integrations/ai-sdk/skill-agent.js';
import { createSkillSessionClient, type SkillSessionClient } from '../src/integrations/restate/skill-session-client.js';
import { createFsSkillRepository } from '../src/repository/fs-skill-repository.js';
import { createRuntime } from '../src/runtime/create-runtime.js';
import { openPostgresSessionStore } from '../src/sessions/postgres/postgres-session-store.js';
import { openSqliteSessionStore } from '../src/sessions/sqlite/sqlite-session-store.js';
import { startWorkerProcess, type WorkerProcess } from '../src/worker/testing/worker-process.js';
import { WorkspaceManager } from '../src/workspace/workspace-manager.js';
import { startAgentWorkerProcess } from '../test/support/agent-worker-process.js';
import { startHaproxy } from '../test/support/haproxy.js';
import { redisKeysUnder, removeRedisPrefix, uniqueRedisPrefix } from '../test/support/redis-key-prefix.js';
import {
  freePort,
  hasRestateServer,
  type RestateServer,
  restateServerMissing,
  startRestateServer,
} from '../test/support/restate-server.js';
import {
  type RecordedRequest,
  type ScriptedOpenAiServer,
  type ScriptedResponse,
  startScriptedOpenAiServer,
} from '../test/support/scripted-openai-server.js';
import {
  hasHaproxy,
  postgresReachable,
  postgresUrl,
  redisReachable,
  redisUrl,
  sandboxWorks,
} from '../test/support/services.js';
import {
  formatSpread,
  interleavedTimes,
  pairedRatio,
  quantile,
  quick,
  reportRatio,
  spreadOf,
} from './bench-support.js';
import type { ScaleAgentWorkerConfig } from './scale-agent-worker.js';

const sessionCount = Number(process.env.SCALE_BENCH_SESSIONS ?? (quick ? 10 : 100));
const turnsPerSession = Number(process.env.SCALE_BENCH_TURNS ?? (quick ? 2 : 3));
const stepMs = Number(process.env.SCALE_BENCH_STEP_MS ?? 100);
const pairRounds = Number(process.env.SCALE_BENCH_ROUNDS ?? (quick ? 4 : 15));
const failoverTurns = Number(process.env.SCALE_BENCH_FAILOVER_TURNS ?? (quick ? 4 : 10));
/** Which sections run (all by default): a comma-separated list of load, durable, failover, snapshot. */
const sections = new Set((process.env.SCALE_BENCH_SECTIONS ?? 'load,durable,failover,snapshot').split(','));
/** How long the first attempt of a failover turn's last step is held: long enough to kill its worker mid-step. */
const failoverHoldMs = 3000;

const agentWorkerScript = fileURLToPath(new URL('./scale-agent-worker.ts', import.meta.url));
const durableAgentWorkerScript = fileURLToPath(new URL('../test/support/durable-agent-worker.ts', import.meta.url));
const skillName = 'tally';
const scriptOutput = 'script-ran';

/**
 * The model, by the turn's message "<mode> <label>": step 1 loads the skill, step 2 runs its
 * script, step 3 answers; each step held `stepMs` after its first text delta. In mode `hold` the
 * first request of the last step is held `failoverHoldMs` instead (a request for it again, after
 * its worker died, is not).
 */
function modelScript(): (request: RecordedRequest) => ScriptedResponse {
  const lastStepsSeen = new Set<string>();
  return (request) => {
    const messages = request.body.messages;
    const asked = String(messages.filter((message) => message.role === 'user').at(-1)?.content ?? '');
    const step = stepOf(request);
    if (step === 1)
      return {
        text: 'Loading the skill.',
        toolCalls: [{ name: 'skill_load', arguments: { skill: skillName } }],
        delayMs: stepMs,
      };
    if (step === 2)
      return {
        text: 'Running it.',
        toolCalls: [{ name: 'skill_run', arguments: { skill: skillName, command: 'bash scripts/tally.sh' } }],
        delayMs: stepMs,
      };
    const firstAttempt = !lastStepsSeen.has(asked);
    lastStepsSeen.add(asked);
    return {
      text: 'Done: the script ran.',
      delayMs: asked.startsWith('hold') && firstAttempt ? failoverHoldMs : stepMs,
    };
  };
}

/** Which of the turn's three steps a request is for, from the messages since its user message. */
function stepOf(request: RecordedRequest): 1 | 2 | 3 {
  const messages = request.body.messages;
  if (messages.at(-1)?.role === 'user') return 1;
  const lastCall = [...messages].reverse().find((message) => message.role === 'assistant' && message.tool_calls) as
    | { tool_calls: Array<{ function: { name: string } }> }
    | undefined;
  return lastCall?.tool_calls[0]?.function.name === 'skill_load' ? 2 : 3;
}

/** The last user message of a request: the turn it belongs to. */
const turnOf = (request: RecordedRequest) =>
  String(request.body.messages.filter((message) => message.role === 'user').at(-1)?.content ?? '');

/** Whether the last step's request carried a tool result holding the script's output. */
const scriptRanIn = (request: RecordedRequest) =>
  JSON.stringify(request.body.messages.filter((message) => message.role === 'tool').at(-1) ?? '').includes(
    scriptOutput,
  );

interface AgentWorker {
  name: string;
  port: number;
  child: ChildProcess;
}

async function killProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** The scratch folder, the model, the Restate server, and the stores every section shares. */
interface Stage {
  scratch: string;
  model: ScriptedOpenAiServer;
  restate: RestateServer;
  redisPrefix: string;
  postgresSchema: string;
  sandboxSecret: string;
}

/** A deployment: agent workers behind an h2c haproxy registered with Restate, sandbox workers behind a pinning haproxy. */
interface Deployment {
  agents: AgentWorker[];
  sandboxes: WorkerProcess[];
  /** Each sandbox worker's workspaces folder: how many workspaces each one holds shows the balancer's pinning. */
  sandboxFolders: string[];
  client: SkillSessionClient;
  stop(): Promise<void>;
}

async function deploy(stage: Stage, agentCount: number, sandboxCount: number, label: string): Promise<Deployment> {
  const sandboxes: WorkerProcess[] = [];
  const sandboxFolders: string[] = [];
  const agents: AgentWorker[] = [];
  const stops: Array<() => Promise<void>> = [];
  try {
    for (let index = 0; index < sandboxCount; index += 1) {
      const folder = join(stage.scratch, 'sandbox-workspaces', `${label}-${index}`);
      await mkdir(folder, { recursive: true, mode: 0o700 });
      sandboxFolders.push(folder);
      const worker = await startWorkerProcess(
        [
          '--ledger',
          postgresUrl,
          '--worker-id',
          `bench-${label}-sandbox-${index}-${process.pid}`,
          '--workspaces',
          folder,
        ],
        stage.sandboxSecret,
      );
      sandboxes.push(worker);
      stops.push(() => worker.stop());
    }
    const sandboxBalancer = await startHaproxy({
      backends: sandboxes.map((worker) => Number(new URL(worker.url).port)),
      balance: 'hdr(x-skillbox-workspace)',
    });
    stops.push(() => sandboxBalancer.stop());
    for (let index = 0; index < agentCount; index += 1) {
      const port = await freePort();
      const name = `${label}-agent-${index}`;
      const config: ScaleAgentWorkerConfig = {
        port,
        name,
        modelBaseUrl: stage.model.baseUrl,
        skillsRoot: join(stage.scratch, 'skills'),
        postgresUrl,
        postgresSchema: stage.postgresSchema,
        redisUrl,
        redisPrefix: stage.redisPrefix,
        sandboxUrl: sandboxBalancer.url,
        sandboxSecret: stage.sandboxSecret,
        workspaceDir: join(stage.scratch, 'agent-workspaces'),
      };
      const child = await startAgentWorkerProcess(agentWorkerScript, config);
      agents.push({ name, port, child });
      stops.push(() => killProcess(child));
    }
    const agentBalancer = await startHaproxy({ backends: agents.map((agent) => agent.port), http2: true });
    stops.push(() => agentBalancer.stop());
    await stage.restate.register(agentBalancer.url);
  } catch (error) {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw error;
  }
  return {
    agents,
    sandboxes,
    sandboxFolders,
    client: createSkillSessionClient({ ingressUrl: stage.restate.ingressUrl }),
    async stop() {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
    },
  };
}

const session = (userId: string, sessionId: string) => ({ appName: 'default', userId, sessionId });

/** SESSIONS sessions at once, each running TURNS turns one after another; each turn's latency. */
async function runLoad(
  deployment: Deployment,
  label: string,
  sessions = sessionCount,
  turns = turnsPerSession,
): Promise<{ latencies: number[]; wallMs: number; failed: string[] }> {
  const latencies: number[] = [];
  const failed: string[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: sessions }, async (_, sessionIndex) => {
      const parts = session(label, `s${sessionIndex}`);
      for (let turn = 0; turn < turns; turn += 1) {
        const turnStarted = performance.now();
        try {
          const turnId = await deployment.client.startTurn(parts, {
            message: `run ${label}-s${sessionIndex}-t${turn}`,
          });
          await deployment.client.turnResult(turnId);
          latencies.push(performance.now() - turnStarted);
        } catch (error) {
          failed.push(`${parts.sessionId} turn ${turn}: ${(error as Error).message.split('\n')[0]}`);
        }
      }
    }),
  );
  return { latencies, wallMs: performance.now() - started, failed };
}

/** Model requests of the turns whose message starts with `prefix`, and what they show. */
function countsOf(model: ScriptedOpenAiServer, prefix: string, turns: number) {
  const requests = model.requests.filter((request) => turnOf(request).startsWith(prefix));
  const lastSteps = requests.filter((request) => stepOf(request) === 3);
  return {
    requestsPerTurn: requests.length / turns,
    scriptsRan: new Set(lastSteps.filter(scriptRanIn).map(turnOf)).size,
    stepsAskedAgain: requests.length - new Set(requests.map((request) => `${turnOf(request)}#${stepOf(request)}`)).size,
  };
}

async function loadSection(stage: Stage): Promise<void> {
  const configurations = [
    [1, 1],
    [2, 1],
    [1, 2],
    [2, 2],
  ] as const;
  const throughput = new Map<string, number>();
  let failedTurns = 0;
  console.log(
    `load: ${sessionCount} sessions at once x ${turnsPerSession} turns, 3 model steps of ${stepMs} ms and one skill script per turn`,
  );
  for (const [agentCount, sandboxCount] of configurations) {
    const label = `a${agentCount}s${sandboxCount}`;
    const deployment = await deploy(stage, agentCount, sandboxCount, label);
    try {
      // Untimed, two turns per agent worker: fresh processes compile their code and open their
      // connections on their first turns, which would otherwise weigh on the configuration alone.
      const warm = await runLoad(deployment, `warm-${label}`, 2 * agentCount, 1);
      if (warm.failed.length > 0) throw new Error(`warm-up turn failed: ${warm.failed[0]}`);
      const { latencies, wallMs, failed } = await runLoad(deployment, label);
      const turns = sessionCount * turnsPerSession;
      failedTurns += failed.length;
      const perSecond = latencies.length / (wallMs / 1000);
      throughput.set(label, perSecond);
      const counts = countsOf(stage.model, `run ${label}-`, turns);
      const held = await Promise.all(deployment.sandboxFolders.map(async (folder) => (await readdir(folder)).length));
      console.log(
        `${agentCount} agent / ${sandboxCount} sandbox workers: ${perSecond.toFixed(1)} turns/s, p50 ${latencies.length > 0 ? quantile(latencies, 0.5).toFixed(0) : '-'} ms, p95 ${latencies.length > 0 ? quantile(latencies, 0.95).toFixed(0) : '-'} ms; ${counts.requestsPerTurn.toFixed(2)} model requests per turn, ${counts.stepsAskedAgain} steps asked again, scripts ran in ${counts.scriptsRan}/${turns} turns, workspace folders per sandbox worker ${held.join(' and ')}${failed.length > 0 ? `; ${failed.length} failed, first: ${failed[0]}` : ''}`,
      );
    } finally {
      await deployment.stop();
    }
  }
  if (failedTurns > 0) throw new Error(`${failedTurns} turns failed (above)`);
  const ratio = (value: string, base: string) => {
    const a = throughput.get(value);
    const b = throughput.get(base);
    return a !== undefined && b !== undefined && b > 0 ? spreadOf([a / b]) : undefined;
  };
  for (const [value, base, comparison] of [
    ['a2s1', 'a1s1', 'turns/s, 2 / 1 agent workers'],
    ['a1s2', 'a1s1', 'turns/s, 2 / 1 sandbox workers'],
    ['a2s2', 'a1s1', 'turns/s, 2+2 / 1+1 workers'],
  ] as const) {
    const spread = ratio(value, base);
    // One sample per configuration: a ratio of throughputs, > 1 when the second worker helps.
    if (spread !== undefined)
      reportRatio({ benchmark: 'scale', comparison, ratio: spread, goal: '> 1 (more is faster)' });
  }
}

async function durableAgainstInProcessSection(stage: Stage): Promise<void> {
  const port = await freePort();
  const sqlitePath = join(stage.scratch, 'pair-sessions.db');
  const workspaceDir = join(stage.scratch, 'pair-workspaces');
  await mkdir(workspaceDir, { recursive: true, mode: 0o700 });
  const worker = await startAgentWorkerProcess(durableAgentWorkerScript, {
    port,
    modelBaseUrl: stage.model.baseUrl,
    skillsRoot: join(stage.scratch, 'skills'),
    sqlitePath,
    redisUrl,
    redisPrefix: stage.redisPrefix,
    workspaceDir,
  });
  const repository = await createFsSkillRepository({ roots: [join(stage.scratch, 'skills')] });
  const sessions = await openSqliteSessionStore({ path: join(stage.scratch, 'in-process-sessions.db') });
  const agent = createSkillAgent({
    model: createOpenAICompatible({
      name: 'scripted',
      baseURL: stage.model.baseUrl,
      apiKey: 'k',
      includeUsage: true,
    }).chatModel('scripted'),
    repository,
    sessions,
    workspaces: new WorkspaceManager({ runtime: createRuntime({ kind: 'local' }), repository, baseDir: workspaceDir }),
  });
  try {
    await stage.restate.register(`http://127.0.0.1:${port}`);
    const client = createSkillSessionClient({ ingressUrl: stage.restate.ingressUrl });
    let round = 0;
    const durableTurnIds: string[] = [];
    const times = await interleavedTimes(
      {
        durable: async () => {
          round += 1;
          const turnId = await client.startTurn(session('pair', `durable-${round}`), {
            message: `run pair-durable-${round}`,
          });
          durableTurnIds.push(turnId);
          await client.turnResult(turnId);
        },
        inProcess: async () => {
          round += 1;
          // A failed turn throws out of the stream; its events are only drained, as a server would.
          for await (const _event of agent.run({
            userId: 'pair',
            sessionId: `local-${round}`,
            message: `run pair-local-${round}`,
          }));
        },
      },
      pairRounds,
    );
    const durable = countsOf(stage.model, 'run pair-durable-', pairRounds + 1);
    const local = countsOf(stage.model, 'run pair-local-', pairRounds + 1);
    console.log(
      `durable turn (one agent worker, Restate) ${formatSpread(spreadOf(times.durable), 0, ' ms')}, createSkillAgent in this process ${formatSpread(spreadOf(times.inProcess), 0, ' ms')}, ${pairRounds} rounds; model requests per turn ${durable.requestsPerTurn.toFixed(2)} against ${local.requestsPerTurn.toFixed(2)}, scripts ran ${durable.scriptsRan} and ${local.scriptsRan} times`,
    );
    console.log(await journalCounts(stage.restate, durableTurnIds));
    console.log(await feedCounts(stage.redisPrefix, 'pair'));
    const ratio = pairedRatio(times.durable, times.inProcess);
    console.log(`ratio durable / in-process ${formatSpread(ratio)} (goal <= 1.1, model step ${stepMs} ms)`);
    reportRatio({ benchmark: 'scale', comparison: 'durable turn / createSkillAgent', ratio, goal: '<= 1.1' });
  } finally {
    await killProcess(worker);
    await agent.close();
    await sessions.close();
  }
}

/**
 * Journal entries per durable turn, from the Restate server's own tables (its admin SQL API): each
 * is a round trip to the server before the turn goes on, so their count is the durable turn's
 * fixed work beside the model's.
 */
async function journalCounts(restate: RestateServer, turnIds: readonly string[]): Promise<string> {
  const response = await fetch(`${restate.adminUrl}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: 'SELECT id, entry_type, name FROM sys_journal' }),
  });
  if (!response.ok) return `journal entries: the admin query answered ${response.status}`;
  const { rows } = (await response.json()) as { rows: Array<{ id: string; entry_type: string; name?: string }> };
  const ours = rows.filter((row) => turnIds.includes(row.id));
  if (ours.length === 0)
    return 'journal entries: none kept once a turn ended (the server retains no journal of a finished invocation)';
  const kinds = new Map<string, number>();
  for (const row of ours) kinds.set(row.entry_type, (kinds.get(row.entry_type) ?? 0) + 1);
  const turns = new Set(ours.map((row) => row.id)).size;
  return `journal entries per durable turn (3 model steps, 2 tool calls): ${(ours.length / turns).toFixed(1)} (${[...kinds].map(([kind, count]) => `${kind} ${(count / turns).toFixed(1)}`).join(', ')}), over ${turns} turns`;
}

/** Turn-feed entries per durable turn of `userId`: the events a client following the turn receives. */
async function feedCounts(prefix: string, userId: string): Promise<string> {
  const streams = (await redisKeysUnder(`${prefix}{default:${userId}}:feed:`)).filter((key) => !key.endsWith(':ids'));
  const client = new Redis(redisUrl);
  try {
    const lengths = await Promise.all(streams.map((key) => client.xlen(key)));
    const total = lengths.reduce((sum, length) => sum + length, 0);
    return `turn feed entries per durable turn: ${(total / Math.max(1, streams.length)).toFixed(1)} (each text delta is published on its own as it streams), over ${streams.length} turns`;
  } finally {
    await client.quit();
  }
}

async function failoverSection(stage: Stage): Promise<void> {
  const deployment = await deploy(stage, 2, 1, 'failover');
  try {
    const labels = Array.from({ length: failoverTurns }, (_, index) => `hold failover-${index}`);
    const lastStepRequests = () =>
      stage.model.requests.filter((request) => turnOf(request).startsWith('hold failover-') && stepOf(request) === 3);
    const turnIds = await Promise.all(
      labels.map((message, index) => deployment.client.startTurn(session('failover', `f${index}`), { message })),
    );
    const finishedAt = new Map<string, number>();
    const results = turnIds.map((turnId, index) =>
      deployment.client.turnResult(turnId).then(
        () => finishedAt.set(labels[index]!, performance.now()),
        (error: Error) => {
          throw new Error(`failover turn ${index}: ${error.message}`);
        },
      ),
    );
    // Every turn waits on its held last step: kill one worker with its share of them in flight.
    const deadline = Date.now() + 60_000;
    while (lastStepRequests().length < failoverTurns) {
      if (Date.now() > deadline) throw new Error('failover: the turns did not all reach their last step within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const victim = deployment.agents[0]!;
    const moved = lastStepRequests()
      .filter((request) => request.headers['x-bench-agent-worker'] === victim.name)
      .map(turnOf);
    const killedAt = performance.now();
    await killProcess(victim.child);
    await Promise.all(results);
    const since = (turns: readonly string[]) =>
      Math.max(0, ...turns.map((turn) => (finishedAt.get(turn) ?? killedAt) - killedAt));
    const counts = countsOf(stage.model, 'hold failover-', failoverTurns);
    console.log(
      `failover: kill -9 of 1 of 2 agent workers holding ${moved.length} of ${failoverTurns} turns in their last step (held ${failoverHoldMs} ms on the first attempt, ${stepMs} ms when asked again): all of its turns done ${since(moved).toFixed(0)} ms after the kill, every turn ${since(labels).toFixed(0)} ms; ${counts.stepsAskedAgain} steps asked again (expected ${moved.length}), ${counts.requestsPerTurn.toFixed(2)} model requests per turn`,
    );
  } finally {
    await deployment.stop();
  }
}

async function snapshotSection(): Promise<void> {
  // The workspace-snapshot benchmark measures exactly this; when the same run includes it, once is enough.
  if ((process.env.SKILLBOX_BENCH_SELECTED ?? '').split(',').includes('workspace-snapshot.bench.ts')) {
    console.log('snapshot and restore of a 50 MB workspace: see workspace-snapshot in this run');
    return;
  }
  console.log('snapshot and restore (workspace-snapshot.bench.ts):');
  const { run } = await import('./workspace-snapshot.bench.js');
  await run();
}

/** The skill every turn runs: one line of output, on whichever sandbox worker holds the workspace. */
async function writeSkill(scratch: string): Promise<void> {
  const folder = join(scratch, 'skills', skillName);
  await mkdir(join(folder, 'scripts'), { recursive: true });
  await writeFile(
    join(folder, 'SKILL.md'),
    `---\nname: ${skillName}\ndescription: Prints one line.\n---\nRun \`bash scripts/tally.sh\`.\n`,
  );
  await writeFile(join(folder, 'scripts', 'tally.sh'), `echo ${scriptOutput}\n`);
}

export async function run(): Promise<void> {
  const missing = (needs: Record<string, boolean>) =>
    Object.entries(needs)
      .filter(([, available]) => !available)
      .map(([name]) => name);
  if (!hasRestateServer) console.log(`skipped load, durable/in-process and failover: ${restateServerMissing}`);
  const stage: Stage | undefined = hasRestateServer && redisReachable ? await openStage() : undefined;
  if (hasRestateServer && !redisReachable)
    console.log('skipped load, durable/in-process and failover: Redis (the turn feed) is not reachable');
  // A section that breaks says so and the others still run; the benchmark then exits non-zero.
  const broken: string[] = [];
  const section = async (name: string, body: () => Promise<void>) => {
    if (!sections.has(name)) return;
    try {
      await body();
    } catch (error) {
      broken.push(name);
      console.log(`${name} failed: ${(error as Error).message.split('\n')[0]}`);
    }
  };
  try {
    if (stage !== undefined) {
      const clusterMissing = missing({ haproxy: hasHaproxy, PostgreSQL: postgresReachable, sandbox: sandboxWorks });
      if (clusterMissing.length > 0) console.log(`skipped load and failover: no ${clusterMissing.join(', ')}`);
      else await section('load', () => loadSection(stage));
      await section('durable', () => durableAgainstInProcessSection(stage));
      if (clusterMissing.length === 0) await section('failover', () => failoverSection(stage));
    }
  } finally {
    if (stage !== undefined) await closeStage(stage);
  }
  await section('snapshot', snapshotSection);
  if (broken.length > 0) throw new Error(`scale benchmark: ${broken.join(', ')} could not run`);
}

async function openStage(): Promise<Stage> {
  const scratch = await mkdtemp(join(tmpdir(), 'skillbox-scale-bench-'));
  await writeSkill(scratch);
  await mkdir(join(scratch, 'agent-workspaces'), { mode: 0o700 });
  const postgresSchema = `skillbox_scale_bench_${process.pid}`;
  // Made here once: two agent workers creating the same schema at once could collide.
  if (postgresReachable)
    await (await openPostgresSessionStore({ connectionString: postgresUrl, schema: postgresSchema })).close();
  return {
    scratch,
    model: await startScriptedOpenAiServer(modelScript()),
    restate: await startRestateServer(),
    redisPrefix: uniqueRedisPrefix(),
    postgresSchema,
    sandboxSecret: randomBytes(32).toString('hex'),
  };
}

async function closeStage(stage: Stage): Promise<void> {
  await stage.restate.stop();
  await stage.model.close();
  await removeRedisPrefix(stage.redisPrefix);
  if (postgresReachable) {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${stage.postgresSchema} CASCADE`);
    await client.end();
  }
  await rm(stage.scratch, { recursive: true, force: true });
}
