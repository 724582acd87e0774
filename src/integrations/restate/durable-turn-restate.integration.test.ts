import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentWorkerProcess } from '../../../test/support/agent-worker-process.js';
import { uniqueRedisPrefix } from '../../../test/support/redis-key-prefix.js';
import {
  freePort,
  hasRestateServer,
  type RestateServer,
  restateServerMissing,
  startRestateServer,
} from '../../../test/support/restate-server.js';
import {
  type RecordedRequest,
  type ScriptedOpenAiServer,
  type ScriptedResponse,
  startScriptedOpenAiServer,
} from '../../../test/support/scripted-openai-server.js';
import { redisReachable, redisUrl } from '../../../test/support/services.js';
import { openRedisTurnEventFeed } from '../../sessions/redis/redis-turn-event-feed.js';
import { openSqliteSessionStore } from '../../sessions/sqlite/sqlite-session-store.js';
import type { TurnEventFeed } from '../../sessions/turn-event-feed.js';
import { lostRunMessage } from './journaled-tool-calls.js';
import { createSkillSessionClient, type FollowedTurnEvent, followTurn } from './skill-session-client.js';

if (!hasRestateServer) console.log(restateServerMissing);
const workerScript = fileURLToPath(new URL('../../../test/support/durable-agent-worker.ts', import.meta.url));

/**
 * The model, by conversation: "<skill> <counter file> <seconds>" loads the skill, runs its script
 * (append a line to the counter, then sleep), then answers; "slow" in the message makes the last
 * step pause after its first text delta, so a test can kill the worker in the middle of it.
 */
function answer(request: RecordedRequest): ScriptedResponse {
  const messages = request.body.messages;
  const users = messages.filter((message) => message.role === 'user');
  const asked = String(users[users.length - 1]?.content ?? '');
  const [skill, counter, seconds] = asked.split(' ');
  const last = messages[messages.length - 1]!;
  if (last.role === 'user') return { toolCalls: [{ name: 'skill_load', arguments: { skill } }] };
  const lastCall = [...messages].reverse().find((message) => message.role === 'assistant' && message.tool_calls) as
    | { tool_calls: Array<{ function: { name: string } }> }
    | undefined;
  if (lastCall?.tool_calls[0]?.function.name === 'skill_load')
    return {
      toolCalls: [{ name: 'skill_run', arguments: { skill, command: `bash scripts/tally.sh ${counter} ${seconds}` } }],
    };
  return { text: 'Counted once, all done.', ...(asked.includes('slow') ? { delayMs: 4000 } : {}) };
}

const tally = (name: string) => `---
name: ${name}
description: Appends a line to a counter file, then waits.
---
Run \`bash scripts/tally.sh <counter file> <seconds>\`.
`;

describe.runIf(hasRestateServer && redisReachable)(
  'durable turns on a real Restate server, with kill -9 of the agent worker',
  () => {
    let restate: RestateServer;
    let model: ScriptedOpenAiServer;
    let scratch: string;
    let worker: ChildProcess | undefined;
    let workerPort: number;
    let feed: TurnEventFeed;
    let config: Record<string, unknown>;

    async function startWorker(): Promise<void> {
      const child = await startAgentWorkerProcess(workerScript, config);
      worker = child;
    }

    async function killWorker(): Promise<void> {
      const child = worker!;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      worker = undefined;
    }

    async function until(what: string, check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
      const deadline = Date.now() + ms;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    const lines = async (file: string) =>
      (await readFile(file, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '').length;

    beforeAll(async () => {
      scratch = await mkdtemp(join(tmpdir(), 'skillbox-durable-'));
      for (const name of ['tally', 'guarded']) {
        await mkdir(join(scratch, 'skills', name, 'scripts'), { recursive: true });
        await writeFile(join(scratch, 'skills', name, 'SKILL.md'), tally(name));
        await writeFile(join(scratch, 'skills', name, 'scripts', 'tally.sh'), 'echo ran >> "$1"\nsleep "$2"\n');
      }
      restate = await startRestateServer();
      model = await startScriptedOpenAiServer((request) => answer(request));
      workerPort = await freePort();
      const redisPrefix = uniqueRedisPrefix();
      config = {
        port: workerPort,
        modelBaseUrl: model.baseUrl,
        skillsRoot: join(scratch, 'skills'),
        sqlitePath: join(scratch, 'sessions.db'),
        redisUrl,
        redisPrefix,
        workspaceDir: join(scratch, 'workspaces'),
        approvalSkills: ['guarded'],
      };
      feed = await openRedisTurnEventFeed({ url: redisUrl, keyPrefix: redisPrefix });
      await startWorker();
      await restate.register(`http://127.0.0.1:${workerPort}`);
    }, 60_000);

    afterAll(async () => {
      if (worker !== undefined) await killWorker();
      await feed?.close();
      await model?.close();
      await restate?.stop();
      await rm(scratch, { recursive: true, force: true });
    });

    const client = () => createSkillSessionClient({ ingressUrl: restate.ingressUrl });
    const requestsOf = (counter: string) =>
      model.requests.filter((request) => JSON.stringify(request.body.messages).includes(counter));

    async function collect(session: SessionParts, turnId: string, after?: string): Promise<FollowedTurnEvent[]> {
      const events: FollowedTurnEvent[] = [];
      for await (const event of followTurn(feed, session, turnId, after !== undefined ? { after } : {}))
        events.push(event);
      return events;
    }

    type SessionParts = { appName: string; userId: string; sessionId: string };
    const typesOf = (events: FollowedTurnEvent[]) => events.map(({ event }) => event.type);

    /** The stored session: its events in order, each with the turn's id prefix. */
    async function storedEvents(session: SessionParts) {
      const store = await openSqliteSessionStore({ path: String(config.sqlitePath) });
      try {
        return (await store.getSession(session))?.events ?? [];
      } finally {
        await store.close();
      }
    }

    it('runs a turn with skill_load and skill_run, then a second turn from the store', async () => {
      const session = { appName: 'default', userId: 'anna', sessionId: 'plain' };
      const counter = join(scratch, 'plain.count');
      const turnId = await client().startTurn(session, { message: `tally ${counter} 0` });
      const result = await client().turnResult(turnId);
      expect(result).toMatchObject({ turnId, text: 'Counted once, all done.', steps: 3 });
      expect(await lines(counter)).toBe(1);
      const events = await collect(session, turnId);
      expect(typesOf(events).filter((type) => type === 'step-finish')).toHaveLength(3);
      expect(typesOf(events).at(-1)).toBe('done');
      const second = await client().turnResult(await client().startTurn(session, { message: `tally ${counter} 0` }));
      expect(second.sessionVersion).toBeGreaterThan(result.sessionVersion);
      expect(await lines(counter)).toBe(2);
      // The second turn's first request carried the first turn from the store.
      const firstOfSecond = requestsOf(counter)[3]!;
      expect(JSON.stringify(firstOfSecond.body.messages)).toContain('Counted once, all done.');
      const stored = await storedEvents(session);
      expect(stored.map((event) => event.version)).toEqual(stored.map((_, index) => index + 1));
    }, 60_000);

    it('kill -9 after the script started: the run is not repeated, the model is told it was lost, the turn completes', async () => {
      const session = { appName: 'default', userId: 'anna', sessionId: 'lost-run' };
      const counter = join(scratch, 'lost.count');
      const turnId = await client().startTurn(session, { message: `tally ${counter} 3` });
      const following = collect(session, turnId);
      await until('the script to append', async () => (await lines(counter)) === 1);
      await killWorker();
      await startWorker();
      const result = await client().turnResult(turnId);
      expect(result.text).toBe('Counted once, all done.');
      // The orphaned script finishes its sleep; nothing ran it a second time.
      await new Promise((resolve) => setTimeout(resolve, 3500));
      expect(await lines(counter)).toBe(1);
      const requests = requestsOf(counter);
      expect(requests).toHaveLength(3);
      expect(JSON.stringify(requests[2]!.body.messages)).toContain(lostRunMessage);
      const events = await following;
      expect(new Set(events.map(({ id }) => id)).size).toBe(events.length);
      expect(typesOf(events)).toEqual([
        'tool-call',
        'state-change',
        'tool-result',
        'step-finish',
        'tool-call',
        'tool-result',
        'step-finish',
        'text-delta',
        'text-delta',
        'text-delta',
        'step-finish',
        'done',
      ]);
      const runResult = events.find(({ event }) => event.type === 'tool-result' && event.toolName === 'skill_run');
      expect(runResult?.event).toMatchObject({ error: lostRunMessage });
      const stored = await storedEvents(session);
      expect(stored.map((event) => event.id)).toEqual(stored.map((_, index) => `${turnId}/${index}`));
      expect(stored.map((event) => event.type)).toEqual([
        'message',
        'message',
        'message',
        'message',
        'message',
        'message',
        'state',
      ]);
    }, 90_000);

    it('kill -9 after the script finished, mid model step: no finished step requested twice, the cut step restarts on the feed', async () => {
      const session = { appName: 'default', userId: 'anna', sessionId: 'cut-step' };
      const counter = join(scratch, 'cut.count');
      const turnId = await client().startTurn(session, { message: `tally ${counter} 0 slow` });
      const seen: FollowedTurnEvent[] = [];
      const following = (async () => {
        for await (const event of followTurn(feed, session, turnId)) seen.push(event);
      })();
      await until('the last step to start streaming', () => seen.some(({ event }) => event.type === 'text-delta'));
      await killWorker();
      await startWorker();
      const result = await client().turnResult(turnId);
      await following;
      expect(result.text).toBe('Counted once, all done.');
      expect(await lines(counter)).toBe(1);
      const requests = requestsOf(counter);
      // Steps 0 and 1 finished before the kill and were requested once; step 2 was cut and asked again.
      expect(requests).toHaveLength(4);
      expect(new Set(seen.map(({ id }) => id)).size).toBe(seen.length);
      const restarted = seen.findIndex(({ event }) => event.type === 'step-restarted');
      expect(restarted).toBeGreaterThan(0);
      expect(seen[restarted]!.event).toEqual({ type: 'step-restarted', stepNumber: 2 });
      const textAfter = seen
        .slice(restarted)
        .map(({ event }) => (event.type === 'text-delta' ? event.text : ''))
        .join('');
      expect(textAfter).toBe('Counted once, all done.');
      // A client that reconnects after any event gets exactly the rest.
      const middle = seen[3]!.id;
      expect((await collect(session, turnId, middle)).map(({ id }) => id)).toEqual(seen.slice(4).map(({ id }) => id));
    }, 90_000);

    it('kill -9 of the Restate server mid-script: the restarted server resumes the turn, the script is not run again', async () => {
      const session = { appName: 'default', userId: 'anna', sessionId: 'server-restart' };
      const counter = join(scratch, 'server.count');
      const turnId = await client().startTurn(session, { message: `tally ${counter} 3` });
      await until('the script to append', async () => (await lines(counter)) === 1);
      await restate.killAndRestart();
      const result = await client().turnResult(turnId);
      expect(result.text).toBe('Counted once, all done.');
      await new Promise((resolve) => setTimeout(resolve, 3500));
      expect(await lines(counter)).toBe(1);
      const requests = requestsOf(counter);
      expect(requests).toHaveLength(3);
      expect(JSON.stringify(requests[2]!.body.messages)).toContain(lostRunMessage);
      const events = await collect(session, turnId);
      expect(new Set(events.map(({ id }) => id)).size).toBe(events.length);
      expect(typesOf(events).filter((type) => type === 'done')).toHaveLength(1);
      const stored = await storedEvents(session);
      expect(stored.map((event) => event.id)).toEqual(stored.map((_, index) => `${turnId}/${index}`));
    }, 90_000);

    it('an approval answered after a worker restart: the turn waits durably, then runs the script once', async () => {
      const session = { appName: 'default', userId: 'anna', sessionId: 'approval' };
      const counter = join(scratch, 'approval.count');
      const turnId = await client().startTurn(session, { message: `guarded ${counter} 0` });
      let approvalId: string | undefined;
      for await (const { event } of followTurn(feed, session, turnId)) {
        if (event.type === 'approval-requested') {
          approvalId = event.approvalId;
          expect(event.request).toMatchObject({ tool: 'skill_run', skill: 'guarded' });
          break;
        }
      }
      await killWorker();
      await startWorker();
      expect(await lines(counter)).toBe(0);
      await client().approve(session, approvalId!, 'allow-once');
      const result = await client().turnResult(turnId);
      expect(result.text).toBe('Counted once, all done.');
      expect(await lines(counter)).toBe(1);
      const events = await collect(session, turnId);
      expect(typesOf(events).filter((type) => type === 'approval-requested')).toHaveLength(1);
      const stored = await storedEvents(session);
      expect(stored.map((event) => event.type)).toContain('approval-decision');
    }, 90_000);
  },
);
