import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { type HttpSkillServer, serveSkillsOverHttp } from './http-server.js';
import { type ClientOutcome, runClients, runOneClient, type SessionEnding } from './testing/session-load.js';

// Issue 36: with a session limit, clients that leave without DELETE (the SDK's close() sends none)
// held their slots for 30 minutes and every later client got 503. These loads use the real SDK
// client on loopback against a limit of 4, so that 2× and 5× the limit stay quick.
const examples = resolve(import.meta.dirname, '../../../examples/skills');
const limit = 4;
let server: HttpSkillServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(): Promise<HttpSkillServer> {
  server = await serveSkillsOverHttp({
    repository: await FsSkillRepository.open({ roots: [examples] }),
    port: 0,
    watch: false,
    maxSessions: limit,
    // A client that closed its GET stream is reclaimed at once; one that has not waits this long,
    // long enough that a client's own pause between requests on a loaded machine is not taken for leaving.
    sessionReclaimAfterMs: 1_000,
    log: () => undefined,
  });
  return server;
}

function failures(outcomes: readonly ClientOutcome[]): string[] {
  return outcomes.filter((outcome) => !outcome.served).map((outcome) => outcome.error ?? 'unknown');
}

describe('skillbox mcp over HTTP under load (real SDK clients, limit 4)', () => {
  const patterns: Array<[string, { clients: number; atOnce: number; ending: SessionEnding }]> = [
    ['24 clients, 2 at a time, close() only', { clients: 24, atOnce: 2, ending: 'close' }],
    ['24 clients, 2 at a time, terminateSession() + close()', { clients: 24, atOnce: 2, ending: 'terminate' }],
    ['a burst of 2× the limit, close() only', { clients: 2 * limit, atOnce: 2 * limit, ending: 'close' }],
    ['a burst of 5× the limit, close() only', { clients: 5 * limit, atOnce: 5 * limit, ending: 'close' }],
    [
      'a burst of 5× the limit, terminateSession() + close()',
      { clients: 5 * limit, atOnce: 5 * limit, ending: 'terminate' },
    ],
  ];
  for (const [name, load] of patterns) {
    it(`serves every client: ${name}`, async () => {
      const http = await serve();
      const outcomes = await runClients(http.url, load);
      expect(failures(outcomes)).toEqual([]);
      expect(outcomes).toHaveLength(load.clients);
      const stats = http.sessionStats();
      // The bound holds at every moment: sessions open, being set up and being ended together.
      expect(stats.peak).toBeLessThanOrEqual(limit);
      expect(http.sessionCount()).toBeLessThanOrEqual(limit);
      expect(stats.refused).toBe(0);
      if (load.ending === 'terminate') {
        // Clients that DELETE free their slots themselves: nothing is left to reclaim.
        expect(http.sessionCount()).toBe(0);
      } else {
        // Clients that only close() leave sessions behind; past the limit they were reclaimed.
        expect(stats.reclaimed).toBe(load.clients - http.sessionCount());
        expect(stats.reclaimed).toBeGreaterThanOrEqual(load.clients - limit);
      }
    }, 60_000);
  }

  it('takes the session of a client that closed its stream at once, and never that of a connected one', async () => {
    server = await serveSkillsOverHttp({
      repository: await FsSkillRepository.open({ roots: [examples] }),
      port: 0,
      watch: false,
      maxSessions: 1,
      // Far beyond the test: only a client's leaving can free the slot in time.
      sessionReclaimAfterMs: 60_000,
      sessionWaitMs: 1_500,
      log: () => undefined,
    });
    const url = server.url;
    const connected = new Client({ name: 'stays', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(new URL(url)));
    await connected.listTools();
    // Connected (its GET stream open) though quiet: the next client waits 1.5 s and is refused.
    const refused = await runOneClient(url, 'close');
    expect(refused.served).toBe(false);
    expect(refused.error).toContain('1 sessions open, its limit');
    expect((await connected.listTools()).tools.length).toBeGreaterThan(0);
    await connected.close();
    // close() sends no DELETE, but ends the GET stream: the slot is free for the next client now.
    const served = await runOneClient(url, 'close');
    expect(served).toMatchObject({ served: true });
    expect(server.sessionStats()).toMatchObject({ open: 1, reclaimed: 1, refused: 1, peak: 1 });
  }, 30_000);

  it('before the limit, leaves sessions of clients that only closed alone', async () => {
    const http = await serve();
    const outcomes = await runClients(http.url, { clients: limit, atOnce: 1, ending: 'close' });
    expect(failures(outcomes)).toEqual([]);
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 300));
    expect(http.sessionCount()).toBe(limit);
    expect(http.sessionStats().reclaimed).toBe(0);
  }, 30_000);
});
