import { execFile } from 'node:child_process';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPackedPackage, repositoryRoot, typeCheckConsumer } from '../support/packed-project.js';
import { startScriptedOpenAiServer } from '../support/scripted-openai-server.js';

// What a user gets from `npm i skillbox`: the packed tarball installed into an empty project, with
// nothing else. `npx skillbox mcp` / `chat` must run from there (their dependencies come with
// skillbox), and the library must import from ESM, from CommonJS (require(esm)) and type-check
// under the three TypeScript module resolutions consumers use.

const execute = promisify(execFile);
/** Whether this Node has the built-in SQLite the session store falls back on without better-sqlite3. */
const nodeHasSqlite = (() => {
  try {
    createRequire(import.meta.url)('node:sqlite');
    return true;
  } catch {
    return false;
  }
})();
// The project stands for a user's, which has only what it installed: the Node x ai matrix's module
// hooks (.ci/matrix.sh) would otherwise hand its processes the repository's better-sqlite3 and ai.
delete process.env.NODE_OPTIONS;
delete process.env.SKILLBOX_MATRIX_MODULES;
const examples = resolve(repositoryRoot, 'examples/skills');
let project: string;

beforeAll(async () => {
  const installed = await installPackedPackage('skillbox-packed-');
  project = installed.folder;
  // Nothing that only the repository needs, and no source map pointing at sources not shipped
  // (dist/*/testing/ holds the conformance suites that `skillbox/testing` exports).
  const paths = installed.packedPaths;
  expect(paths.filter((path) => /\.map$|^src\/|^test\/|\.test\.|^bench\/|^examples\//.test(path))).toEqual([]);
  expect(paths).toEqual(
    expect.arrayContaining([
      'LICENSE',
      'README.md',
      'CHANGELOG.md',
      'bin/skillbox.js',
      'dist/index.js',
      'dist/index.d.ts',
    ]),
  );
}, 300_000);

afterAll(async () => {
  if (project !== undefined) await rm(project, { recursive: true, force: true });
});

function text(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

describe('the packed package installed alone', () => {
  it('installs no benchmark or test-only package, and leaves better-sqlite3 out', async () => {
    const installed = await readdir(join(project, 'node_modules'));
    for (const name of ['better-sqlite3', 'vitest', 'tsx', 'deepagents', 'bash-tool', 'pg', 'ioredis', 'fast-check'])
      expect(installed).not.toContain(name);
    expect(installed).toEqual(expect.arrayContaining(['skillbox', 'ai', '@modelcontextprotocol', '@ai-sdk']));
  });

  it('runs `npx skillbox mcp` for a real MCP client over stdio: lists the tools and loads a skill', async () => {
    const transport = new StdioClientTransport({
      command: 'npx',
      args: ['--no-install', 'skillbox', 'mcp', '--root', examples],
      cwd: project,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    const client = new Client({ name: 'packed-test', version: '1.0.0' });
    const protocolErrors: Error[] = [];
    client.onerror = (error) => void protocolErrors.push(error);
    try {
      await client.connect(transport);
      expect(client.getInstructions()).toContain('- python-math: ');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([
        'skill_load',
        'skill_list_docs',
        'skill_select_docs',
        'skill_read',
      ]);
      const loaded = (await client.callTool({
        name: 'skill_load',
        arguments: { skill: 'python-math' },
      })) as CallToolResult;
      expect(loaded.isError).toBeFalsy();
      expect(text(loaded)).toContain('# Python math');
      expect(stderr).toContain('skillbox mcp: serving 4 skills (profile knowledge) on stdio');
      expect(protocolErrors).toEqual([]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('runs `npx skillbox chat --once` against an OpenAI-compatible endpoint without better-sqlite3: in node:sqlite where Node has it, else in memory', async () => {
    const server = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'skill_load', arguments: { skill: 'python-math' } }] },
      { text: 'Loaded it.' },
    ]);
    try {
      const { stdout, stderr } = await execute(
        'npx',
        ['--no-install', 'skillbox', 'chat', '--root', examples, '--runtime', 'local', '--once', 'Use python-math'],
        {
          cwd: project,
          env: {
            ...process.env,
            HOME: project,
            OPENAI_BASE_URL: server.baseUrl,
            SKILLBOX_MODEL: 'scripted',
            OPENAI_API_KEY: 'sk-test',
          },
        },
      );
      expect(stdout).toBe('Loaded it.\n');
      if (nodeHasSqlite) {
        expect(stderr).not.toContain('kept in memory only');
        expect((await stat(join(project, '.skillbox/sessions.db'))).isFile()).toBe(true);
      } else {
        expect(stderr).toContain(
          'no SQLite driver is available, so this conversation is kept in memory only and cannot be resumed (npm install better-sqlite3, or use Node 22.13 or later',
        );
      }
      expect(stderr).toContain('· skill_load {"skill":"python-math"}');
    } finally {
      await server.close();
    }
  }, 60_000);

  it('answers --version and --help from the installed bin', async () => {
    const version = await execute('npx', ['--no-install', 'skillbox', '--version'], { cwd: project });
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const help = await execute('npx', ['--no-install', 'skillbox', 'mcp', '--help'], { cwd: project });
    expect(help.stdout).toMatch(/^Usage: skillbox mcp /);
  }, 60_000);

  it('imports from an ES module and requires from CommonJS (require(esm))', async () => {
    const esm = await execute(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('skillbox'); const mcp = await import('skillbox/mcp'); const ai = await import('skillbox/ai-sdk'); console.log(typeof m.FsSkillRepository, typeof mcp.createSkillMcpServer, typeof ai.createSkillAgent)",
      ],
      { cwd: project },
    );
    expect(esm.stdout).toBe('function function function\n');
    // require(esm) is on by default from Node 20.19 and 22.12; older versions need a dynamic import.
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    if (major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19)) {
      const cjs = await execute(
        process.execPath,
        [
          '--no-warnings',
          '-e',
          "const m = require('skillbox'); console.log(typeof m.FsSkillRepository, typeof require('skillbox/mcp').createSkillMcpServer)",
        ],
        { cwd: project },
      );
      expect(cjs.stdout).toBe('function function\n');
    }
    const dynamic = await execute(
      process.execPath,
      ['-e', "import('skillbox').then((m) => console.log(typeof m.renderCatalog))"],
      { cwd: project },
    );
    expect(dynamic.stdout).toBe('function\n');
  }, 60_000);

  it('type-checks a consumer under TypeScript nodenext, bundler and node10 resolution', async () => {
    const consumer = join(project, 'ts');
    await mkdir(consumer, { recursive: true });
    await writeFile(
      join(consumer, 'consumer.ts'),
      [
        "import { FsSkillRepository, renderCatalog, type SkillSummary } from 'skillbox';",
        "import { createSkillMcpServer, type SkillMcpServerOptions } from 'skillbox/mcp';",
        "import type { SessionStore } from 'skillbox';",
        'export async function catalog(store: SessionStore): Promise<string> {',
        "  const repository = await FsSkillRepository.open({ roots: ['skills'] });",
        '  const skills: SkillSummary[] = await repository.list();',
        '  const options: SkillMcpServerOptions = { repository, catalogBudget: { tokens: 1000 } };',
        '  void createSkillMcpServer(options);',
        '  void store;',
        '  return renderCatalog({ skills });',
        '}',
        // A wrong type must fail, or this check proves nothing.
        '// @ts-expect-error: roots is a list of strings',
        'void FsSkillRepository.open({ roots: 1 });',
        '',
      ].join('\n'),
    );
    const settings: Record<string, { module: string; moduleResolution: string }> = {
      nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
      bundler: { module: 'esnext', moduleResolution: 'bundler' },
      node10: { module: 'commonjs', moduleResolution: 'node10' },
    };
    for (const [name, options] of Object.entries(settings)) {
      const result = await typeCheckConsumer(consumer, name, options, ['consumer.ts']);
      expect(result, name).toBe('');
    }
  }, 120_000);
});
