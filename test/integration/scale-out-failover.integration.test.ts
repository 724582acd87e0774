import { type ChildProcess, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { lostRunMessage } from '../../src/integrations/restate/journaled-tool-calls.js';
import {
  createSkillSessionClient,
  type FollowedTurnEvent,
  followTurn,
} from '../../src/integrations/restate/skill-session-client.js';
import { openPostgresSessionStore } from '../../src/sessions/postgres/postgres-session-store.js';
import { openRedisTurnEventFeed } from '../../src/sessions/redis/redis-turn-event-feed.js';
import type { TurnEventFeed } from '../../src/sessions/turn-event-feed.js';
import { lostRunWarning } from '../../src/worker/lost-run-result.js';
import { startWorkerProcess, type WorkerProcess } from '../../src/worker/testing/worker-process.js';
import { ledgerAnswerWarning } from '../../src/worker/worker-runs.js';
import { startAgentWorkerProcess } from '../support/agent-worker-process.js';
import type { DurableAgentWorkerConfig } from '../support/durable-agent-worker.js';
import { type Haproxy, startHaproxy } from '../support/haproxy.js';
import { removeRedisPrefix, uniqueRedisPrefix } from '../support/redis-key-prefix.js';
import { freePort, hasRestateServer, type RestateServer, startRestateServer } from '../support/restate-server.js';
import {
  type RecordedRequest,
  type ScriptedOpenAiServer,
  type ScriptedResponse,
  startScriptedOpenAiServer,
} from '../support/scripted-openai-server.js';
import {
  hasHaproxy,
  postgresReachable,
  postgresUrl,
  redisReachable,
  redisUrl,
  sandboxWorks,
} from '../support/services.js';

/*
 * The whole scale-out deployment of issue 33 on loopback, every piece its own process: a Restate
 * server; haproxy (h2c) in front of two agent workers (one deployment, registered at haproxy's URL)
 * sharing PostgreSQL sessions and the Redis turn feed; their commands go through a second haproxy
 * (HTTP/1.1, pinned by x-skillbox-workspace) to two `skillbox worker` processes sharing a PostgreSQL
 * run ledger and workspace custody. Each scenario kills one piece with -9 (or the Restate server).
 *
 * How runs are counted: a script cannot write outside its sandbox, so each run creates a uniquely
 * named marker `out/run-<ns>-<pid>` in its workspace, and the test reads the markers from both
 * sandbox workers' workspaces folders on the host (a killed worker's folder stays on disk, and a
 * marker copied by a snapshot restore keeps its name): distinct marker names = script runs.
 */
const ready = hasRestateServer && hasHaproxy && postgresReachable && redisReachable && sandboxWorks;
if (!ready)
  console.log(
    'scale-out failover rig skipped: it needs restate-server, haproxy, PostgreSQL, Redis and the sandbox (bash .ci/services.sh)',
  );
const agentScript = fileURLToPath(new URL('../support/durable-agent-worker.ts', import.meta.url));

/** The model, by the last user message "<skill> <seconds> <tag> [slow]": load the skill, run its script, answer. */
function answer(request: RecordedRequest): ScriptedResponse {
  const messages = request.body.messages;
  const users = messages.filter((message) => message.role === 'user');
  const asked = String(users[users.length - 1]?.content ?? '');
  const [skill, seconds] = asked.split(' ');
  const last = messages[messages.length - 1]!;
  if (last.role === 'user') return { toolCalls: [{ name: 'skill_load', arguments: { skill } }] };
  const lastCall = [...messages].reverse().find((message) => message.role === 'assistant' && message.tool_calls) as
    | { tool_calls: Array<{ function: { name: string } }> }
    | undefined;
  if (lastCall?.tool_calls[0]?.function.name === 'skill_load')
    return { toolCalls: [{ name: 'skill_run', arguments: { skill, command: `bash scripts/mark.sh ${seconds}` } }] };
  return { text: 'Marked, all done.', ...(asked.includes('slow') ? { delayMs: 4000 } : {}) };
}

const skill = (name: string, retrySafe: boolean) => `---
name: ${name}
description: Leaves a marker in out/, then waits.
${retrySafe ? 'metadata:\n  skillbox-retry: safe\n' : ''}---
Run \`bash scripts/mark.sh <seconds>\`.
`;
// Lists the markers already there (what earlier turns left), leaves its own, then sleeps.
const markScript = `mkdir -p out
echo "before: $(ls out | tr '\\n' ' ')"
name="run-$(date +%s%N)-$$"
: > "out/$name"
sleep "$1"
echo "finished $name"
`;

type SessionParts = { appName: string; userId: string; sessionId: string };
type AgentWorker = { name: string; port: number; child?: ChildProcess };

describe.runIf(ready)('the scale-out rig: Restate, two agent workers, two sandbox workers, kill -9 of each', () => {
  const tag = `${process.pid}-${randomBytes(3).toString('hex')}`;
  const secret = randomBytes(32).toString('hex');
  const schema = `rig_${tag.replace(/-/g, '_')}`;
  let scratch: string;
  let restate: RestateServer;
  let model: ScriptedOpenAiServer;
  let agentBalancer: Haproxy;
  let sandboxBalancer: Haproxy;
  let feed: TurnEventFeed;
  let redisPrefix: string;
  const agents: AgentWorker[] = [];
  const sandboxes: Array<{ port: number; folder: string; process?: WorkerProcess }> = [];
  let baseConfig: Omit<DurableAgentWorkerConfig, 'port' | 'name'>;

  async function startAgent(agent: AgentWorker): Promise<void> {
    const config: DurableAgentWorkerConfig = { ...baseConfig, port: agent.port, name: agent.name };
    // Its own process group, so afterAll can end whatever it started.
    const child = await startAgentWorkerProcess(agentScript, config, { name: agent.name, detached: true });
    agent.child = child;
  }

  async function killGroup(child: ChildProcess | undefined): Promise<void> {
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
    await exited;
  }

  async function startSandbox(index: number): Promise<void> {
    const sandbox = sandboxes[index]!;
    sandbox.process = await startWorkerProcess(
      [
        '--listen',
        `127.0.0.1:${sandbox.port}`,
        '--workspaces',
        sandbox.folder,
        '--ledger',
        postgresUrl,
        '--custody',
        postgresUrl,
        '--custody-lease-ms',
        '1500',
        '--run-lease-ms',
        '1000',
        '--worker-id',
        `rig-sandbox-${index}-${tag}-${Date.now().toString(36)}`,
      ],
      secret,
    );
  }

  async function until(what: string, check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Every marker on each sandbox worker's disk: index of the worker -> marker names. */
  async function markersByWorker(): Promise<Set<string>[]> {
    return Promise.all(
      sandboxes.map(async ({ folder }) => {
        const entries = await readdir(folder, { recursive: true }).catch(() => [] as string[]);
        return new Set(entries.map((entry) => basename(entry)).filter((name) => /^run-\d+-\d+$/.test(name)));
      }),
    );
  }
  const allMarkers = async () => new Set((await markersByWorker()).flatMap((set) => [...set]));
  const newMarkers = async (before: Set<string>) => [...(await allMarkers())].filter((name) => !before.has(name));

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'skillbox-rig-'));
    for (const [name, safe] of [
      ['mark', false],
      ['mark-safe', true],
    ] as const) {
      await mkdir(join(scratch, 'skills', name, 'scripts'), { recursive: true });
      await writeFile(join(scratch, 'skills', name, 'SKILL.md'), skill(name, safe));
      await writeFile(join(scratch, 'skills', name, 'scripts', 'mark.sh'), markScript);
    }
    for (const index of [0, 1]) {
      sandboxes.push({ port: await freePort(), folder: join(scratch, `sandbox-${index}`) });
      await startSandbox(index);
    }
    sandboxBalancer = await startHaproxy({
      backends: sandboxes.map(({ port }) => port),
      balance: 'hdr(x-skillbox-workspace)',
    });
    restate = await startRestateServer();
    model = await startScriptedOpenAiServer((request) => answer(request));
    redisPrefix = uniqueRedisPrefix();
    baseConfig = {
      modelBaseUrl: model.baseUrl,
      skillsRoot: join(scratch, 'skills'),
      sqlitePath: join(scratch, 'unused.db'),
      redisUrl,
      redisPrefix,
      // Both agent workers name a session's workspace alike, so its commands reach the same sandbox workspace.
      workspaceDir: join(scratch, 'agent-workspaces'),
      postgres: { url: postgresUrl, schema },
      sandboxWorker: { url: sandboxBalancer.url, secret },
      runLedger: true,
    };
    feed = await openRedisTurnEventFeed({ url: redisUrl, keyPrefix: redisPrefix });
    for (const name of ['agent-a', 'agent-b']) {
      const agent: AgentWorker = { name, port: await freePort() };
      agents.push(agent);
      await startAgent(agent);
    }
    agentBalancer = await startHaproxy({ backends: agents.map(({ port }) => port), http2: true });
    await restate.register(agentBalancer.url);
  }, 90_000);

  afterAll(async () => {
    for (const agent of agents) await killGroup(agent.child);
    for (const sandbox of sandboxes) await sandbox.process?.stop();
    await agentBalancer?.stop();
    await sandboxBalancer?.stop();
    await restate?.stop();
    await model?.close();
    await feed?.close();
    if (redisPrefix !== undefined) await removeRedisPrefix(redisPrefix);
    const db = new pg.Client({ connectionString: postgresUrl });
    await db.connect();
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
    await rm(scratch, { recursive: true, force: true });
  }, 60_000);

  const client = () => createSkillSessionClient({ ingressUrl: restate.ingressUrl });
  const session = (name: string): SessionParts => ({ appName: 'default', userId: `rig-${tag}`, sessionId: name });
  const requestsOf = (turnTag: string) =>
    model.requests.filter((request) => {
      const users = request.body.messages.filter((message) => message.role === 'user');
      return String(users[users.length - 1]?.content ?? '').includes(` ${turnTag}`);
    });
  const workerOf = (request: RecordedRequest) => request.headers['x-agent-worker'];

  function follow(parts: SessionParts, turnId: string): { seen: FollowedTurnEvent[]; ended: Promise<void> } {
    const seen: FollowedTurnEvent[] = [];
    const ended = (async () => {
      for await (const event of followTurn(feed, parts, turnId)) seen.push(event);
    })();
    return { seen, ended };
  }

  /** The client's feed has every event once and ends with `done`; the stored events are in order, with the turn's ids. */
  async function expectCompleteTurn(parts: SessionParts, turnId: string, seen: FollowedTurnEvent[]): Promise<void> {
    expect(new Set(seen.map(({ id }) => id)).size).toBe(seen.length);
    expect(seen.filter(({ event }) => event.type === 'done')).toHaveLength(1);
    expect(seen.at(-1)?.event.type).toBe('done');
    expect(seen.filter(({ event }) => event.type === 'tool-result')).toHaveLength(2);
    const store = await openPostgresSessionStore({ connectionString: postgresUrl, schema });
    try {
      const events = (await store.getSession(parts))?.events ?? [];
      expect(events.map((event) => event.version)).toEqual(events.map((_, index) => index + 1));
      const ofTurn = events.filter((event) => event.id.startsWith(`${turnId}/`));
      expect(ofTurn.map((event) => event.id)).toEqual(ofTurn.map((_, index) => `${turnId}/${index}`));
      expect(ofTurn.length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  }

  async function ledgerRows(turnId: string): Promise<Array<{ state: string; attempt: number }>> {
    const db = new pg.Client({ connectionString: postgresUrl });
    await db.connect();
    try {
      const rows = await db.query('SELECT state, attempt FROM skillbox_worker_runs WHERE run_id LIKE $1', [
        `${turnId}/%`,
      ]);
      return rows.rows as Array<{ state: string; attempt: number }>;
    } finally {
      await db.end();
    }
  }

  it('listens on loopback only: every socket of this test and the processes it started', async () => {
    const parents = new Map<number, number>();
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
      // The parent pid is the second field after the parenthesised command name.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (Number.isInteger(parent)) parents.set(Number(entry), parent);
    }
    const ours = new Set([process.pid]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [pid, parent] of parents)
        if (ours.has(parent) && !ours.has(pid)) {
          ours.add(pid);
          grew = true;
        }
    }
    const listening = execFileSync('ss', ['-Hltnp'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => [...line.matchAll(/pid=(\d+)/g)].some((match) => ours.has(Number(match[1]))))
      .map((line) => line.trim().split(/\s+/)[3]!);
    // Restate (ingress, admin, fabric), two balancers, two agent workers, two sandbox workers, the model.
    expect(listening.length).toBeGreaterThanOrEqual(10);
    expect(listening.filter((address) => !address.startsWith('127.0.0.1:'))).toEqual([]);
  });

  it('kill -9 of the agent worker while its script runs: the other continues, the ledger attaches, the real result reaches the model', async () => {
    const parts = session('agent-mid-run');
    const before = await allMarkers();
    const turnId = await client().startTurn(parts, { message: 'mark 3 t1' });
    const { seen, ended } = follow(parts, turnId);
    await until('the script to leave its marker', async () => (await newMarkers(before)).length === 1);
    const runner = workerOf(requestsOf('t1').at(-1)!);
    const victim = agents.find(({ name }) => name === runner)!;
    await killGroup(victim.child);
    // Back for the next scenario, whatever this one asserts.
    onTestFinished(() => startAgent(victim));
    const result = await client().turnResult(turnId);
    await ended;
    expect(result.text).toBe('Marked, all done.');
    const [marker] = await newMarkers(before);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await newMarkers(before)).toEqual([marker]);
    const requests = requestsOf('t1');
    expect(requests).toHaveLength(3);
    expect(workerOf(requests[2]!)).not.toBe(runner);
    // The script's own output, not the lost-run message: the re-asked run id attached to the run.
    expect(JSON.stringify(requests[2]!.body.messages)).toContain(`finished ${marker}`);
    expect(JSON.stringify(requests[2]!.body.messages)).not.toContain(lostRunMessage);
    expect(await ledgerRows(turnId)).toEqual([{ state: 'finished', attempt: 1 }]);
    await expectCompleteTurn(parts, turnId, seen);
  }, 60_000);

  it('kill -9 of the agent worker after the script finished, mid model step: no finished step asked twice, the script ran once', async () => {
    const parts = session('agent-mid-step');
    const before = await allMarkers();
    const turnId = await client().startTurn(parts, { message: 'mark 0 t2 slow' });
    const { seen, ended } = follow(parts, turnId);
    await until('the last step to stream', () => seen.some(({ event }) => event.type === 'text-delta'));
    const runner = workerOf(requestsOf('t2').at(-1)!);
    const victim = agents.find(({ name }) => name === runner)!;
    await killGroup(victim.child);
    // Back for the next scenario, whatever this one asserts.
    onTestFinished(() => startAgent(victim));
    const result = await client().turnResult(turnId);
    await ended;
    expect(result.text).toBe('Marked, all done.');
    expect(await newMarkers(before)).toHaveLength(1);
    // Steps 0 and 1 finished before the kill, once each; step 2 was cut and asked again.
    const requests = requestsOf('t2');
    expect(requests).toHaveLength(4);
    expect(seen.filter(({ event }) => event.type === 'step-restarted')).toEqual([
      expect.objectContaining({ event: { type: 'step-restarted', stepNumber: 2 } }),
    ]);
    await expectCompleteTurn(parts, turnId, seen);
  }, 60_000);

  it('kill -9 of the sandbox worker holding the workspace: a run not safe to retry is reported lost, the other worker takes the workspace over from its last snapshot', async () => {
    const parts = session('sandbox-lost');
    const first = await client().turnResult(await client().startTurn(parts, { message: 'mark 0 t3a' }));
    expect(first.text).toBe('Marked, all done.');
    const before = await allMarkers();
    const [earlier] = [...before].filter((name) => JSON.stringify(requestsOf('t3a')).includes(name));
    expect(earlier).toBeDefined();

    const turnId = await client().startTurn(parts, { message: 'mark 5 t3b' });
    const { seen, ended } = follow(parts, turnId);
    await until('the script to leave its marker', async () => (await newMarkers(before)).length === 1);
    const [marker] = await newMarkers(before);
    const holder = (await markersByWorker()).findIndex((set) => set.has(marker!));
    sandboxes[holder]!.process!.child.kill('SIGKILL');
    onTestFinished(() => startSandbox(holder));
    const result = await client().turnResult(turnId);
    await ended;
    expect(result.text).toBe('Marked, all done.');
    const requests = requestsOf('t3b');
    expect(requests).toHaveLength(3);
    // haproxy sent the cut-off request again (retry-on empty-response) to the other worker, which
    // waited out the custody and run leases and answered from the ledger: lost, not run again.
    expect(JSON.stringify(requests[2]!.body.messages)).toContain(lostRunWarning);
    expect(JSON.stringify(requests[2]!.body.messages)).toContain(ledgerAnswerWarning);
    expect(JSON.stringify(requests[2]!.body.messages)).not.toContain(`finished ${marker}`);
    expect(await newMarkers(before)).toEqual([marker]);
    await expectCompleteTurn(parts, turnId, seen);

    // The next turn runs on the other sandbox worker, in the workspace restored from the last snapshot.
    const next = await client().startTurn(parts, { message: 'mark 0 t3c' });
    expect((await client().turnResult(next)).text).toBe('Marked, all done.');
    const seenBy = JSON.stringify(requestsOf('t3c')[2]!.body.messages);
    expect(seenBy).toContain(earlier);
    expect((await markersByWorker())[1 - holder]!.has(earlier!)).toBe(true);
  }, 60_000);

  it('kill -9 of the sandbox worker holding the workspace: a retry-safe skill runs again (twice) and the turn gets its result', async () => {
    const parts = session('sandbox-retry');
    const before = await allMarkers();
    const turnId = await client().startTurn(parts, { message: 'mark-safe 3 t4' });
    const { seen, ended } = follow(parts, turnId);
    await until('the script to leave its marker', async () => (await newMarkers(before)).length === 1);
    const [marker] = await newMarkers(before);
    const holder = (await markersByWorker()).findIndex((set) => set.has(marker!));
    sandboxes[holder]!.process!.child.kill('SIGKILL');
    onTestFinished(() => startSandbox(holder));
    const result = await client().turnResult(turnId);
    await ended;
    expect(result.text).toBe('Marked, all done.');
    const markers = await newMarkers(before);
    expect(markers).toHaveLength(2);
    const again = markers.find((name) => name !== marker)!;
    const requests = requestsOf('t4');
    expect(requests).toHaveLength(3);
    expect(JSON.stringify(requests[2]!.body.messages)).toContain(`finished ${again}`);
    expect(JSON.stringify(requests[2]!.body.messages)).toMatch(/run again \(attempt 2\)/);
    expect(await ledgerRows(turnId)).toEqual([{ state: 'finished', attempt: 2 }]);
    await expectCompleteTurn(parts, turnId, seen);
  }, 60_000);

  it('kill -9 and restart of the Restate server mid-script, agents without runLedger: the turn completes, the model is told the run was lost, the script ran once', async () => {
    // The default: without runLedger a call cut off mid-run is not asked again (docs/durable-turns.md).
    baseConfig = { ...baseConfig, runLedger: false };
    for (const agent of agents) {
      await killGroup(agent.child);
      await startAgent(agent);
    }
    const parts = session('restate-restart');
    const before = await allMarkers();
    const turnId = await client().startTurn(parts, { message: 'mark 3 t5' });
    await until('the script to leave its marker', async () => (await newMarkers(before)).length === 1);
    await restate.killAndRestart();
    const result = await client().turnResult(turnId);
    expect(result.text).toBe('Marked, all done.');
    // The cut-off script finishes its sleep on the sandbox worker; nothing ran it again.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await newMarkers(before)).toHaveLength(1);
    const requests = requestsOf('t5');
    expect(requests).toHaveLength(3);
    expect(JSON.stringify(requests[2]!.body.messages)).toContain(lostRunMessage);
    expect(await ledgerRows(turnId)).toEqual([{ state: 'finished', attempt: 1 }]);
    const seen: FollowedTurnEvent[] = [];
    for await (const event of followTurn(feed, parts, turnId)) seen.push(event);
    await expectCompleteTurn(parts, turnId, seen);
  }, 60_000);
});
