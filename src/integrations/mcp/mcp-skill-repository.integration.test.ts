import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../../test/support/services.js';
import { isSkillboxError } from '../../errors.js';
import { createRuntime } from '../../runtime/create-runtime.js';
import { createExecutionTools } from '../../workspace/tools/execution-tools.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';
import { McpSkillRepository } from './mcp-skill-repository.js';
import { createSkillMcpServer } from './skill-mcp-server.js';
import { createLyingSkillServer } from './testing/lying-skill-server.js';

const repositoryRoot = resolve(import.meta.dirname, '../../..');
const entry = resolve(import.meta.dirname, 'testing/serve-from-cli.ts');
const tsx = resolve(repositoryRoot, 'node_modules/.bin/tsx');
const examples = resolve(repositoryRoot, 'examples/skills');

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe('McpSkillRepository over skillbox mcp (stdio) and a lying server', () => {
  let repository: McpSkillRepository;
  let reads: string[];

  beforeAll(async () => {
    const liar = createLyingSkillServer();
    reads = liar.reads;
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await liar.server.connect(serverSide);
    repository = await McpSkillRepository.connect({
      servers: [
        { label: 'local', command: tsx, args: [entry, '--root', examples], cwd: repositoryRoot },
        { label: 'liar', transport: clientSide },
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await repository?.close();
  });

  it('lists from skills/list only, qualifying the name both servers use and reporting it', async () => {
    const names = (await repository.list()).map((skill) => skill.name);
    expect(names).toEqual([
      'file-ops',
      'honest',
      'liar:python-math',
      'local:python-math',
      'other-frontmatter',
      'tampered-script',
      'unlisted',
      'user-file-ops',
      'weather-tools',
      'wrong-digest',
      'wrong-size',
    ]);
    expect(reads).toEqual([]);
    expect(repository.collisions()).toEqual([
      { name: 'python-math', qualified: ['local:python-math', 'liar:python-math'] },
    ]);
    const report = await repository.report();
    expect(report.warnings).toContain(
      'skill name "python-math" is used by more than one origin; offered as "local:python-math", "liar:python-math"',
    );
    expect(report.skipped).toEqual([
      {
        path: 'mcp:liar skill://dynamic/SKILL.md',
        reason:
          'its files are "dynamic" (no digests), so they could not be verified; skillbox loads only listed, hashed files',
      },
      {
        path: 'mcp:liar skill://escaping/SKILL.md',
        reason: 'its manifest lists skill://honest/SKILL.md, which is not inside the skill',
      },
    ]);
  });

  it('loads a skill of skillbox mcp through resources/read, verified, with its docs from the manifest', async () => {
    const skill = await repository.get('local:python-math');
    expect(skill.body).toContain('# Python math');
    expect(skill.docs).toEqual(['docs/usage.md']);
    expect(skill.root).toBe('mcp:local');
    expect(await repository.listFiles('local:python-math')).toEqual([
      'SKILL.md',
      'docs/usage.md',
      'scripts/fib.py',
      'scripts/primes.py',
      'scripts/stats.py',
    ]);
    expect((await repository.readFile('local:python-math', 'scripts/fib.py')).toString()).toContain('def ');
    const impostor = await repository.get('liar:python-math');
    expect(impostor.body.trim()).toBe('Impostor');
  });

  it('refuses bytes whose digest is not the listed one, naming server, skill and file', async () => {
    const error = await failure(repository.get('wrong-digest'));
    expect(isSkillboxError(error, 'MCP_SKILL_VERIFICATION_FAILED')).toBe(true);
    expect(error.message).toMatch(
      /^MCP server "liar", skill "wrong-digest", file "SKILL.md": served bytes with digest sha256:[0-9a-f]{64} but the listing says sha256:/,
    );
  });

  it('refuses bytes whose size is not the listed one', async () => {
    const error = await failure(repository.readFile('wrong-size', 'docs/guide.md'));
    expect(error.message).toBe(
      'MCP server "liar", skill "wrong-size", file "docs/guide.md": served 12 bytes but the listing says 13; not used',
    );
  });

  it('refuses a SKILL.md whose frontmatter differs from the listing', async () => {
    const error = await failure(repository.get('other-frontmatter'));
    expect(error.message).toBe(
      'MCP server "liar", skill "other-frontmatter", file "SKILL.md": its frontmatter differs from the listing (field "description"), so it is not loaded',
    );
  });

  it('refuses a file the manifest does not list without asking the server', async () => {
    const before = reads.length;
    const error = await failure(repository.readFile('unlisted', 'secret.md'));
    expect(error.message).toBe(
      'MCP server "liar", skill "unlisted", file "secret.md": not in the skill\'s manifest, so it is not read',
    );
    expect(reads.length).toBe(before);
  });

  it('keeps verified bytes by digest: a second read does not ask the server again', async () => {
    await repository.readFile('honest', 'docs/notes.md');
    const count = reads.filter((uri) => uri === 'skill://honest/docs/notes.md').length;
    expect((await repository.readFile('honest', 'docs/notes.md')).toString()).toBe('notes\n');
    expect(reads.filter((uri) => uri === 'skill://honest/docs/notes.md').length).toBe(count);
  });

  it.runIf(sandboxWorks)(
    'stages skill_run from verified bytes: a skill from skillbox mcp runs, a tampered script is refused',
    async () => {
      const baseDir = await mkdtemp(join(tmpdir(), 'skillbox-mcp-staging-'));
      const workspaces = createWorkspaceManager({ runtime: createRuntime({ kind: 'sandbox' }), repository, baseDir });
      const served = await createSkillMcpServer({
        repository,
        profile: 'full',
        executionTools: createExecutionTools({ workspaces }),
        log: () => undefined,
      });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: 'staging-test', version: '1.0.0' });
      await served.server.connect(serverSide);
      await client.connect(clientSide);
      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = (result: CallToolResult) =>
        result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      try {
        await call('skill_load', { skill: 'local:python-math' });
        const ran = await call('skill_run', { skill: 'local:python-math', command: 'python3 scripts/fib.py 10' });
        expect(ran.isError).toBeFalsy();
        expect(JSON.parse(text(ran)).stdout).toContain('34');

        await call('skill_load', { skill: 'tampered-script' });
        const refused = await call('skill_run', { skill: 'tampered-script', command: 'sh scripts/run.sh' });
        expect(refused.isError).toBe(true);
        expect(text(refused)).toContain('MCP server "liar", skill "tampered-script", file "scripts/run.sh"');
      } finally {
        await client.close();
        await rm(baseDir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
