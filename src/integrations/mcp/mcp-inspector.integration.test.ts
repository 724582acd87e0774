import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// The MCP Inspector's CLI mode as a second client, written by others against the same protocol: if
// skillbox and the official SDK client agreed on a mistake, the Inspector would not. Inspector 2.x
// needs Node 22.19 or later; on older Node (the CI's first pass on Node 20) this file skips, and
// the Node 22 and 24 passes of .ci/matrix.sh run it.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const inspectorRuns = major > 22 || (major === 22 && minor >= 19);
if (!inspectorRuns) {
  console.info(`MCP Inspector tests skipped: Inspector 2.x needs Node 22.19+, this is ${process.versions.node}`);
}

const run = promisify(execFile);
const repositoryRoot = resolve(import.meta.dirname, '../../..');
const entry = resolve(import.meta.dirname, 'testing/serve-from-cli.ts');
const tsx = resolve(repositoryRoot, 'node_modules/.bin/tsx');
const examples = resolve(repositoryRoot, 'examples/skills');

function inspectorLauncher(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@modelcontextprotocol/inspector/package.json');
  const bin = (require(manifest) as { bin: Record<string, string> }).bin.inspector;
  return resolve(dirname(manifest), bin!);
}

/** One Inspector CLI call against `skillbox mcp` on the example skills; its JSON answer. */
async function inspect(...methodArguments: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(
    process.execPath,
    [inspectorLauncher(), '--cli', tsx, entry, '--root', examples, '--method', ...methodArguments],
    { cwd: repositoryRoot, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe.runIf(inspectorRuns)('the MCP Inspector CLI against skillbox mcp', () => {
  it('lists the tools with honest annotations: the knowledge tools read only', async () => {
    const { tools } = (await inspect('tools/list')) as {
      tools: { name: string; annotations?: { readOnlyHint?: boolean } }[];
    };
    const load = tools.find((tool) => tool.name === 'skill_load');
    expect(load?.annotations?.readOnlyHint).toBe(true);
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['skill_load', 'skill_read']));
  }, 90_000);

  it('lists one resource and one prompt per skill, and reads a SKILL.md byte for byte as it is on disk', async () => {
    const { resources } = (await inspect('resources/list')) as { resources: { uri: string }[] };
    expect(resources.map((resource) => resource.uri).sort()).toEqual([
      'skill://file-ops/SKILL.md',
      'skill://python-math/SKILL.md',
      'skill://user-file-ops/SKILL.md',
      'skill://weather-tools/SKILL.md',
    ]);
    const { prompts } = (await inspect('prompts/list')) as { prompts: { name: string }[] };
    expect(prompts.map((prompt) => prompt.name).sort()).toEqual([
      'file-ops',
      'python-math',
      'user-file-ops',
      'weather-tools',
    ]);
    const { contents } = (await inspect('resources/read', '--uri', 'skill://python-math/SKILL.md')) as {
      contents: { text: string }[];
    };
    expect(contents[0]?.text).toBe(await readFile(resolve(examples, 'python-math/SKILL.md'), 'utf8'));
  }, 180_000);
});
