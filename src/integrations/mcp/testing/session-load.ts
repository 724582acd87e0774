// A load of MCP clients over HTTP, as hosts make it: the official SDK client opens a session
// (initialize, tools/list, skill_load, skill_read) and leaves, either with close() alone (no DELETE,
// what most clients do) or with terminateSession() first. Shared by the load test and the benchmark.
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** How a client leaves: `close` sends nothing (the session stays until reclaimed), `terminate` sends DELETE first. */
export type SessionEnding = 'close' | 'terminate';

/** One client's outcome: served (every call answered without error) or the error it met, and how long it took. */
export interface ClientOutcome {
  served: boolean;
  error?: string;
  ms: number;
}

/** Runs one client's session against `url`; never throws. */
export async function runOneClient(url: string, ending: SessionEnding): Promise<ClientOutcome> {
  const started = performance.now();
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'load', version: '1.0.0' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    if (!tools.some((tool) => tool.name === 'skill_load')) throw new Error('skill_load is not listed');
    const loaded = (await client.callTool({
      name: 'skill_load',
      arguments: { skill: 'python-math' },
    })) as CallToolResult;
    if (loaded.isError === true) throw new Error(`skill_load failed: ${JSON.stringify(loaded.content)}`);
    const read = (await client.callTool({
      name: 'skill_read',
      arguments: { skill: 'python-math', path: 'docs/usage.md' },
    })) as CallToolResult;
    if (read.isError === true) throw new Error(`skill_read failed: ${JSON.stringify(read.content)}`);
    if (ending === 'terminate') await transport.terminateSession();
    return { served: true, ms: performance.now() - started };
  } catch (error) {
    return { served: false, error: error instanceof Error ? error.message : String(error), ms: 0 };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Runs `clients` clients, `atOnce` at a time (each starts when one ends), and returns every outcome. */
export async function runClients(
  url: string,
  options: { clients: number; atOnce: number; ending: SessionEnding },
): Promise<ClientOutcome[]> {
  const outcomes: ClientOutcome[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < options.clients) {
      next += 1;
      outcomes.push(await runOneClient(url, options.ending));
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.atOnce, options.clients) }, lane));
  return outcomes;
}
