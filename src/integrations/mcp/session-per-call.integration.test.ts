import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsSkillRepository } from '../../repository/fs-skill-repository.js';
import { SandboxRuntime } from '../../runtime/sandbox-runtime.js';
import { createExecutionTools } from '../../workspace/tools/execution-tools.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';
import { type HttpSkillServer, serveSkillsOverHttp } from './http-server.js';

// Issue 28: clients that open a new MCP session for every call (the MCP Inspector CLI, several
// hosts) never kept a skill_load, so skill_run always refused. skill_load now hands out the
// SKILL.md digest and skill_run accepts it in place of a load in the same session. Every call here
// is its own session of the real SDK client: over HTTP (one server), and over stdio with a new
// `skillbox mcp` process per call, as the Inspector CLI runs it.
const repositoryRoot = path.resolve(import.meta.dirname, '../../..');
const tsx = path.resolve(repositoryRoot, 'node_modules/.bin/tsx');
const entry = path.resolve(import.meta.dirname, 'testing/serve-from-cli.ts');
const instructions = (greeting: string) =>
  `---\nname: greeter\ndescription: Greets.\n---\nRun \`sh scripts/greet.sh\`; it prints ${greeting}.\n`;

describe.runIf(process.platform === 'linux')('skill_run for clients with a new MCP session per call', () => {
  let root: string;
  let skills: string;
  let server: HttpSkillServer;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'skillbox-session-per-call-'));
    skills = path.join(root, 'skills');
    await mkdir(path.join(skills, 'greeter', 'scripts'), { recursive: true });
    await writeFile(path.join(skills, 'greeter', 'SKILL.md'), instructions('hello'));
    await writeFile(path.join(skills, 'greeter', 'scripts', 'greet.sh'), 'echo hello from greeter\n');
    const repository = await createFsSkillRepository({ roots: [skills] });
    const workspaces = createWorkspaceManager({
      runtime: new SandboxRuntime(),
      repository,
      baseDir: path.join(root, 'workspaces'),
    });
    server = await serveSkillsOverHttp({
      repository,
      port: 0,
      watch: false,
      profile: 'full',
      executionTools: createExecutionTools({ workspaces }),
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  /** One call in a session of its own; the client leaves with close() only, as such clients do. */
  async function callOnce(transport: Transport, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const client = new Client({ name: 'one-call', version: '1.0.0' });
    await client.connect(transport);
    try {
      return (await client.callTool({ name, arguments: args })) as CallToolResult;
    } finally {
      await client.close();
    }
  }
  const overHttp = () => new StreamableHTTPClientTransport(new URL(server.url));
  const text = (result: CallToolResult) =>
    result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  const digestIn = (result: CallToolResult) => /skill_digest: (sha256:[0-9a-f]{64})/.exec(text(result))?.[1];

  it('runs with the digest skill_load gave in an earlier session, and refuses without it or with another', async () => {
    const loaded = await callOnce(overHttp(), 'skill_load', { skill: 'greeter' });
    expect(loaded.isError).toBeFalsy();
    expect(text(loaded)).toContain('it prints hello');
    const digest = digestIn(loaded);
    expect(digest).toBeDefined();

    const unloaded = await callOnce(overHttp(), 'skill_run', { skill: 'greeter', command: 'sh scripts/greet.sh' });
    expect(unloaded.isError).toBe(true);
    expect(text(unloaded)).toContain('skill_run requires skill_load first for "greeter"');

    const ran = await callOnce(overHttp(), 'skill_run', {
      skill: 'greeter',
      command: 'sh scripts/greet.sh',
      skill_digest: digest,
    });
    expect(ran.isError).toBeFalsy();
    expect(JSON.parse(text(ran))).toMatchObject({ exit_code: 0, stdout: 'hello from greeter\n' });

    const forged = await callOnce(overHttp(), 'skill_run', {
      skill: 'greeter',
      command: 'sh scripts/greet.sh',
      skill_digest: `sha256:${'0'.repeat(64)}`,
    });
    expect(forged.isError).toBe(true);
    expect(text(forged)).toContain('skill_digest does not match the current SKILL.md of "greeter"');
  }, 60_000);

  it('refuses a digest once SKILL.md has changed: the model must read the new instructions', async () => {
    const before = digestIn(await callOnce(overHttp(), 'skill_load', { skill: 'greeter' }));
    await writeFile(path.join(skills, 'greeter', 'SKILL.md'), instructions('hello, changed'));
    try {
      const stale = await callOnce(overHttp(), 'skill_run', {
        skill: 'greeter',
        command: 'sh scripts/greet.sh',
        skill_digest: before,
      });
      expect(stale.isError).toBe(true);
      expect(text(stale)).toContain('it changed since it was loaded');
      const reloaded = await callOnce(overHttp(), 'skill_load', { skill: 'greeter' });
      expect(text(reloaded)).toContain('hello, changed');
      const after = digestIn(reloaded);
      expect(after).not.toBe(before);
      const ran = await callOnce(overHttp(), 'skill_run', {
        skill: 'greeter',
        command: 'sh scripts/greet.sh',
        skill_digest: after,
      });
      expect(ran.isError).toBeFalsy();
    } finally {
      await writeFile(path.join(skills, 'greeter', 'SKILL.md'), instructions('hello'));
    }
  }, 60_000);

  it('works across skillbox mcp processes over stdio, one process per call as the Inspector CLI runs it', async () => {
    const spawnServer = () =>
      new StdioClientTransport({
        command: tsx,
        args: [entry, '--root', skills, '--profile', 'full', '--runtime', 'sandbox', '--no-watch'],
        cwd: repositoryRoot,
        stderr: 'ignore',
      });
    const digest = digestIn(await callOnce(spawnServer(), 'skill_load', { skill: 'greeter' }));
    expect(digest).toBeDefined();
    const ran = await callOnce(spawnServer(), 'skill_run', {
      skill: 'greeter',
      command: 'sh scripts/greet.sh',
      skill_digest: digest,
    });
    expect(ran.isError).toBeFalsy();
    expect(JSON.parse(text(ran))).toMatchObject({ exit_code: 0, stdout: 'hello from greeter\n' });
  }, 120_000);
});
