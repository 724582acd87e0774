import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startHaproxy } from './haproxy.js';
import { hasHaproxy } from './services.js';

describe.runIf(hasHaproxy)('haproxy test support', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    for (const server of servers) server.close();
  });

  it('spreads requests over live backends and stops sending to one that died', async () => {
    const ports: number[] = [];
    for (const name of ['a', 'b']) {
      const server = createServer((_request, response) => response.end(name));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      ports.push((server.address() as AddressInfo).port);
    }
    const proxy = await startHaproxy({ backends: ports, checkIntervalMs: 100 });
    try {
      const seen = new Set<string>();
      for (let index = 0; index < 6; index += 1) seen.add(await (await fetch(proxy.url)).text());
      expect([...seen].sort()).toEqual(['a', 'b']);
      servers[0]?.closeAllConnections();
      await new Promise<void>((resolve) => servers[0]?.close(() => resolve()));
      const after: string[] = [];
      for (let index = 0; index < 6; index += 1) after.push(await (await fetch(proxy.url)).text());
      expect(after).toEqual(['b', 'b', 'b', 'b', 'b', 'b']);
    } finally {
      await proxy.stop();
    }
  });
});
