import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../../config/config-error.js';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { type HttpSkillServer, serveSkillsOverHttp } from './http-server.js';
import { McpSkillRepository } from './mcp-skill-repository.js';
import { contentBytes, digestOf, listAllSkillPages } from './testing/skills-extension-client.js';

const repositoryRoot = resolve(import.meta.dirname, '../../..');
const examples = resolve(repositoryRoot, 'examples/skills');
const tsx = resolve(repositoryRoot, 'node_modules/.bin/tsx');
const entry = resolve(import.meta.dirname, 'testing/serve-from-cli.ts');
let server: HttpSkillServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'http-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('skillbox mcp over Streamable HTTP', () => {
  it('gives each client its own MCP session with its own loaded skills', async () => {
    server = await serveSkillsOverHttp({
      repository: await FsSkillRepository.open({ roots: [examples] }),
      port: 0,
      log: () => undefined,
    });
    const first = await connect(server.url);
    const second = await connect(server.url);
    try {
      const loaded = (await first.callTool({
        name: 'skill_load',
        arguments: { skill: 'python-math' },
      })) as CallToolResult;
      expect(loaded.isError).toBeFalsy();
      expect(server.sessionCount()).toBe(2);
      const [one, two] = server.sessions();
      const loadedIn = (session: typeof one) => session?.state.keys().filter((key) => key.includes('loaded')) ?? [];
      expect([loadedIn(one).length > 0, loadedIn(two).length > 0].sort()).toEqual([false, true]);
      expect(one?.sessionId).not.toBe(two?.sessionId);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('serves the Skills Extension to McpSkillRepository over HTTP, digests matching the files', async () => {
    server = await serveSkillsOverHttp({
      repository: await FsSkillRepository.open({ roots: [examples] }),
      port: 0,
      log: () => undefined,
    });
    const client = await connect(server.url);
    try {
      const skills = (await listAllSkillPages(client)).flatMap((page) => page.skills);
      expect(skills).toHaveLength(4);
      const read = await client.readResource({ uri: 'skill://weather-tools/docs/units.md' });
      const listed = skills.find((skill) => skill.uri === 'skill://weather-tools/SKILL.md');
      const units =
        listed?.resources === 'dynamic' ? undefined : listed?.resources.find((file) => file.uri.endsWith('units.md'));
      expect(digestOf(contentBytes(read.contents[0] as { text?: string }))).toBe(units?.digest);
    } finally {
      await client.close();
    }
    const repository = await McpSkillRepository.connect({ servers: [{ label: 'http', url: server.url }] });
    try {
      expect((await repository.get('weather-tools')).docs).toEqual(['docs/units.md']);
    } finally {
      await repository.close();
    }
  });

  it('validates the session limits when the server is made, naming the option', async () => {
    const repository = await FsSkillRepository.open({ roots: [examples] });
    for (const [options, message] of [
      [{ maxSessions: 0 }, 'option "maxSessions" must be a positive whole number; got 0'],
      [{ sessionIdleMs: 1.5 }, 'option "sessionIdleMs" must be a positive whole number; got 1.5'],
      [{ sessionReclaimAfterMs: -1 }, 'option "sessionReclaimAfterMs" must be a whole number, 0 or more; got -1'],
      [{ sessionWaitMs: 120_000 }, 'option "sessionWaitMs" must be a whole number from 0 to 60000; got 120000'],
    ] as const) {
      const attempt = serveSkillsOverHttp({ repository, port: 0, log: () => undefined, ...options });
      await expect(attempt).rejects.toThrow(SkillboxConfigError);
      await expect(attempt).rejects.toThrow(message);
    }
  });

  it('skillbox mcp --http starts, prints its URL, serves a client and exits on SIGTERM', async () => {
    const { url, exited, child } = await startCli([]);
    const client = await connect(url);
    expect(client.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/skills']).toEqual({
      directoryRead: true,
    });
    expect((await client.listPrompts()).prompts).toHaveLength(4);
    await client.close();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);

  it('skillbox mcp --http takes the session limits from its flags', async () => {
    // One session, never reclaimed within the test, and no waiting: the second client is refused at once.
    const flags = ['--max-sessions', '1', '--session-reclaim-after', '60', '--session-wait', '0'];
    const { url, exited, child } = await startCli(flags);
    const first = await connect(url);
    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'second', version: '1' } },
      }),
    });
    expect(refused.status).toBe(503);
    // The only session has been idle for well under 60 s: retry once it may be reclaimed.
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'the server has 1 sessions open, its limit',
    );
    await first.close();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});

async function startCli(flags: readonly string[]) {
  const child = spawn(tsx, [entry, '--root', examples, '--http', '0', ...flags], {
    cwd: repositoryRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolvePromise, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match) resolvePromise(match[1] as string);
    });
    child.once('exit', () => reject(new Error(`exited early: ${stderr}`)));
  });
  const exited = new Promise<number | null>((resolvePromise) => child.once('exit', (code) => resolvePromise(code)));
  return { url, exited, child };
}
