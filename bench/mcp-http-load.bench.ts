// MCP over HTTP under load (issue 36): 1,000 sessions of the official SDK client against
// `serveSkillsOverHttp` with its default limits, for each way clients arrive and leave, printing
// sessions per second, p50/p95 of one session (initialize, tools/list, skill_load, skill_read,
// leave) and the server's heap and RSS after a full collection. The server runs in a process of
// its own (mcp-http-server-child.ts) so its memory is its own. Figures only: nothing fails on a
// time; it exits non-zero only when a client is not served.
//   MCP_HTTP_BENCH_SESSIONS=200 npx tsx bench/run-all.ts mcp-http-load   fewer sessions per pattern
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { type ClientOutcome, runClients, type SessionEnding } from '../src/integrations/mcp/testing/session-load.js';
import { quantile, quick } from './bench-support.js';
import type { ServerChildMemory } from './mcp-http-server-child.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const sessions = Number(process.env.MCP_HTTP_BENCH_SESSIONS ?? (quick ? 100 : 1000));

interface Pattern {
  name: string;
  atOnce: number;
  ending: SessionEnding;
}

// The arrivals of the issue's measurements: 20 and 50 clients at once, leaving with close() only or with DELETE.
const patterns: Pattern[] = [
  { name: 'close() only, 20 at once', atOnce: 20, ending: 'close' },
  { name: 'close() only, 50 at once', atOnce: 50, ending: 'close' },
  { name: 'terminateSession() + close(), 20 at once', atOnce: 20, ending: 'terminate' },
  { name: 'terminateSession() + close(), 50 at once', atOnce: 50, ending: 'terminate' },
];

/** The server child: its URL, and its memory on request. */
class ServerChild {
  private readonly replies: Array<(message: { url?: string; memory?: ServerChildMemory }) => void> = [];

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: { url?: string; memory?: ServerChildMemory }) => this.replies.shift()?.(message));
  }

  static async start(): Promise<{ server: ServerChild; url: string; memory: ServerChildMemory }> {
    const child = fork(join(here, 'mcp-http-server-child.ts'), [], {
      execArgv: ['--expose-gc', '--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const server = new ServerChild(child);
    const first = await server.next();
    return { server, url: first.url as string, memory: first.memory as ServerChildMemory };
  }

  private next(): Promise<{ url?: string; memory?: ServerChildMemory }> {
    return new Promise((resolve, reject) => {
      this.replies.push(resolve);
      this.child.once('exit', (code) => reject(new Error(`the server exited with ${String(code)}`)));
    });
  }

  async memory(): Promise<ServerChildMemory> {
    const reply = this.next();
    this.child.send({ memory: true });
    return (await reply).memory as ServerChildMemory;
  }

  async close(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.send({ close: true });
    await exited;
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function run(): Promise<void> {
  console.log(`${sessions} sessions per pattern, default limits (128 sessions, reclaim after 2 s idle, wait 10 s)`);
  let unserved = 0;
  for (const pattern of patterns) {
    const { server, url, memory: before } = await ServerChild.start();
    try {
      const started = performance.now();
      const outcomes: ClientOutcome[] = await runClients(url, {
        clients: sessions,
        atOnce: pattern.atOnce,
        ending: pattern.ending,
      });
      const seconds = (performance.now() - started) / 1000;
      const after = await server.memory();
      const served = outcomes.filter((outcome) => outcome.served);
      const times = served.map((outcome) => outcome.ms);
      unserved += outcomes.length - served.length;
      const failed = outcomes.find((outcome) => !outcome.served)?.error;
      console.log(
        `${pattern.name}: ${served.length}/${outcomes.length} served, ${(served.length / seconds).toFixed(0)} sessions/s, ` +
          `p50 ${quantile(times, 0.5).toFixed(0)} ms, p95 ${quantile(times, 0.95).toFixed(0)} ms per session; ` +
          `server after: ${after.sessions} sessions open, heap ${mb(after.heapUsed)} (start ${mb(before.heapUsed)}), ` +
          `RSS ${mb(after.rss)} (start ${mb(before.rss)})${failed === undefined ? '' : `; first failure: ${failed}`}`,
      );
    } finally {
      await server.close();
    }
  }
  if (unserved > 0) throw new Error(`${unserved} clients were not served`);
}
