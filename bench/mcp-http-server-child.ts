// The server side of mcp-http-load.bench.ts, in a process of its own so that its memory is the
// server's alone: `serveSkillsOverHttp` (what `skillbox mcp --http` runs) on the example skills,
// with the options the parent sends. It answers `{ memory: true }` with its heap and RSS after a
// full garbage collection, and `{ close: true }` by closing. Run with `node --expose-gc --import tsx`.
import { resolve } from 'node:path';
import { serveSkillsOverHttp } from '../src/integrations/mcp/http-server.js';
import { FsSkillRepository } from '../src/repository/fs-skill-repository.js';

export interface ServerChildMemory {
  heapUsed: number;
  rss: number;
  sessions: number;
}

const examples = resolve(import.meta.dirname, '../examples/skills');
const { root, ...settings } = JSON.parse(process.env.SKILLBOX_BENCH_SERVER ?? '{}') as {
  /** The skills folder (default the example skills). */
  root?: string;
  maxSessions?: number;
  sessionIdleMs?: number;
};
const server = await serveSkillsOverHttp({
  repository: await FsSkillRepository.open({ roots: [root ?? examples] }),
  port: 0,
  watch: false,
  log: () => undefined,
  ...settings,
});

function measure(): ServerChildMemory {
  // Twice: the first collection can leave finalised objects for the second.
  globalThis.gc?.();
  globalThis.gc?.();
  const usage = process.memoryUsage();
  return { heapUsed: usage.heapUsed, rss: usage.rss, sessions: server.sessionCount() };
}

process.on('message', (message: { memory?: true; close?: true }) => {
  if (message.memory === true) process.send?.({ memory: measure() });
  if (message.close === true) void server.close().then(() => process.exit(0));
});
process.send?.({ url: server.url, memory: measure() });
