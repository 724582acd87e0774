// Session stores: appends per second (one event per append, each awaited, as a runner writes a
// turn) and reads per second (a whole 100-event session, and its last 20 events), for every store,
// next to the physical floor of the same backend: the bare driver doing the same writes and reads
// without skillbox (raw INSERT in a transaction, raw Lua-free RPUSH, raw SELECT). Never fails on a time.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createMemorySessionStore } from '../src/sessions/memory-session-store.js';
import type { NewSessionEvent, SessionStore } from '../src/sessions/session-store.js';
import { openPostgresSessionStore } from '../src/sessions/postgres/index.js';
import { openRedisSessionStore } from '../src/sessions/redis/index.js';
import { openSqliteSessionStore } from '../src/sessions/sqlite/index.js';

const redisUrl = process.env.SKILLBOX_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const postgresUrl = process.env.SKILLBOX_TEST_POSTGRES_URL ?? 'postgres://skillbox:skillbox@127.0.0.1:5432/skillbox_test';

// A typical assistant message: a few hundred bytes of text plus a small state change.
function event(index: number): NewSessionEvent {
  return {
    author: 'assistant',
    type: 'message',
    content: { role: 'assistant', content: [{ type: 'text', text: `answer ${index} `.repeat(30) }] },
    stateDelta: { 'temp:skill:loaded_order_by_agent:agent': JSON.stringify(['python-math', `skill-${index % 5}`]) },
    usage: { inputTokens: 1200 + index, outputTokens: 80 },
  };
}
const eventJson = JSON.stringify({ version: 1, id: 'x'.repeat(36), timestamp: Date.now(), ...event(0) });

interface Figures {
  appendsPerSecond: number;
  fullReadsPerSecond: number;
  tailReadsPerSecond: number;
}

async function timeLoop(count: number, body: (index: number) => Promise<unknown> | unknown): Promise<number> {
  const started = process.hrtime.bigint();
  for (let index = 0; index < count; index += 1) await body(index);
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}

async function measureStore(store: SessionStore, appends: number, reads: number): Promise<Figures> {
  const writeKey = { userId: 'bench', sessionId: `write-${randomBytes(4).toString('hex')}` };
  await store.createSession(writeKey);
  const appendsPerSecond = await timeLoop(appends, (index) => store.appendEvents(writeKey, [event(index)], { expectedVersion: index }));
  const readKey = { userId: 'bench', sessionId: `read-${randomBytes(4).toString('hex')}` };
  await store.createSession(readKey);
  await store.appendEvents(readKey, Array.from({ length: 100 }, (_, index) => event(index)), { expectedVersion: 0 });
  const fullReadsPerSecond = await timeLoop(reads, () => store.getSession(readKey));
  const tailReadsPerSecond = await timeLoop(reads, () => store.getSession(readKey, { limit: 20 }));
  return { appendsPerSecond, fullReadsPerSecond, tailReadsPerSecond };
}

async function sqliteFloor(path: string, synchronous: string, appends: number, reads: number): Promise<Figures> {
  const database = new Database(path);
  database.pragma('journal_mode = WAL');
  database.pragma(`synchronous = ${synchronous}`);
  database.exec('CREATE TABLE events (session INTEGER, version INTEGER, event TEXT, PRIMARY KEY (session, version)) WITHOUT ROWID');
  const insert = database.prepare('INSERT INTO events VALUES (?, ?, ?)');
  const select = database.prepare('SELECT event FROM events WHERE session = ? ORDER BY version DESC LIMIT ?');
  const append = database.transaction((session: number, version: number) => insert.run(session, version, eventJson));
  const appendsPerSecond = await timeLoop(appends, (index) => append.immediate(1, index));
  for (let index = 0; index < 100; index += 1) append(2, index);
  const fullReadsPerSecond = await timeLoop(reads, () => select.all(2, -1).map((row) => JSON.parse((row as { event: string }).event)));
  const tailReadsPerSecond = await timeLoop(reads, () => select.all(2, 20).map((row) => JSON.parse((row as { event: string }).event)));
  database.close();
  return { appendsPerSecond, fullReadsPerSecond, tailReadsPerSecond };
}

async function redisFloor(prefix: string, appends: number, reads: number): Promise<Figures> {
  const client = new Redis(redisUrl);
  const appendsPerSecond = await timeLoop(appends, () => client.rpush(`${prefix}floor-write`, eventJson));
  await client.rpush(`${prefix}floor-read`, ...Array.from({ length: 100 }, () => eventJson));
  const fullReadsPerSecond = await timeLoop(reads, async () => (await client.lrange(`${prefix}floor-read`, 0, -1)).map((text) => JSON.parse(text)));
  const tailReadsPerSecond = await timeLoop(reads, async () => (await client.lrange(`${prefix}floor-read`, -20, -1)).map((text) => JSON.parse(text)));
  await client.del(`${prefix}floor-write`, `${prefix}floor-read`);
  await client.quit();
  return { appendsPerSecond, fullReadsPerSecond, tailReadsPerSecond };
}

async function postgresFloor(schema: string, appends: number, reads: number): Promise<Figures> {
  const pool = new pg.Pool({ connectionString: postgresUrl });
  await pool.query(`CREATE TABLE "${schema}".floor_events (session integer, version integer, event text, PRIMARY KEY (session, version))`);
  const appendsPerSecond = await timeLoop(appends, async (index) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO "${schema}".floor_events VALUES (1, $1, $2)`, [index, eventJson]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  });
  for (let index = 0; index < 100; index += 1) await pool.query(`INSERT INTO "${schema}".floor_events VALUES (2, $1, $2)`, [index, eventJson]);
  const read = (limit: number | null) => async () =>
    (await pool.query<{ event: string }>(`SELECT event FROM "${schema}".floor_events WHERE session = 2 ORDER BY version DESC LIMIT $1`, [limit])).rows.map((row) => JSON.parse(row.event));
  const fullReadsPerSecond = await timeLoop(reads, read(null));
  const tailReadsPerSecond = await timeLoop(reads, read(20));
  await pool.end();
  return { appendsPerSecond, fullReadsPerSecond, tailReadsPerSecond };
}

function row(name: string, store: Figures, floor: Figures | undefined): string {
  const cell = (value: number, floorValue: number | undefined) =>
    `${Math.round(value).toString().padStart(8)}/s${floorValue === undefined ? '' : ` (${(value / floorValue).toFixed(2)}x floor ${Math.round(floorValue)}/s)`}`;
  return `${name.padEnd(16)} append ${cell(store.appendsPerSecond, floor?.appendsPerSecond)}  read 100 ${cell(store.fullReadsPerSecond, floor?.fullReadsPerSecond)}  read last 20 ${cell(store.tailReadsPerSecond, floor?.tailReadsPerSecond)}`;
}

export async function run(): Promise<void> {
  console.log('one event (~700 B JSON) per awaited append; reads of a 100-event session; ratio = store / bare driver on the same backend');
  console.log('(no npm session-store peer with the same contract is installed; the floor is the comparison)');
  const memory = createMemorySessionStore();
  console.log(row('memory', await measureStore(memory, 5000, 2000), undefined));
  await memory.close();

  const folder = mkdtempSync(join(tmpdir(), 'skillbox-bench-sessions-'));
  try {
    for (const [synchronous, appends] of [['normal', 3000], ['full', 300]] as const) {
      const store = await openSqliteSessionStore({ path: join(folder, `store-${synchronous}.db`), synchronous });
      const figures = await measureStore(store, appends, 2000);
      await store.close();
      console.log(row(`sqlite ${synchronous}`, figures, await sqliteFloor(join(folder, `floor-${synchronous}.db`), synchronous, appends, 2000)));
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }

  const prefix = `skillbox-bench:${randomBytes(4).toString('hex')}:`;
  const redis = await openRedisSessionStore({ url: redisUrl, keyPrefix: prefix });
  const redisFigures = await measureStore(redis, 2000, 1000);
  await redis.close();
  console.log(row('redis', redisFigures, await redisFloor(prefix, 2000, 1000)));
  const cleaner = new Redis(redisUrl);
  const leftover = await cleaner.keys(`${prefix}*`);
  if (leftover.length > 0) await cleaner.del(...leftover);
  await cleaner.quit();

  const schema = `skillbox_bench_${randomBytes(4).toString('hex')}`;
  const postgres = await openPostgresSessionStore({ connectionString: postgresUrl, schema });
  try {
    const postgresFigures = await measureStore(postgres, 500, 500);
    console.log(row('postgres', postgresFigures, await postgresFloor(schema, 500, 500)));
  } finally {
    await postgres.close();
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}
