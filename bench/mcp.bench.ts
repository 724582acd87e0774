// skillbox mcp as a host meets it: the time from spawning `skillbox mcp` to the first skills/list
// answer, a resources/read of a SKILL.md and a skill_load over that stdio connection, each next to
// its floor (spawning node to read the file; reading the file in this process), and the tokens a
// host spends on the catalog through the Skills Extension versus through skill_load's
// description. Runs the built CLI (dist/): `npm run build` first. Figures only.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { z } from 'zod';
import { countTokens } from '../src/disclosure/token-counter.js';
import {
  corpusRoot,
  formatSpread,
  interleavedTimes,
  pairedRatio,
  quick,
  reportRatio,
  spreadOf,
} from './bench-support.js';

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(repositoryRoot, 'bin/skillbox.js');
const examples = join(repositoryRoot, 'examples/skills');
const skillFile = join(examples, 'python-math/SKILL.md');
const listResult = z.looseObject({
  skills: z.array(z.looseObject({ uri: z.string(), frontmatter: z.record(z.string(), z.unknown()) })),
  nextCursor: z.string().optional(),
});

function serverTransport(root: string): StdioClientTransport {
  return new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--root', root], stderr: 'ignore' });
}

async function spawnToFirstList(): Promise<void> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(serverTransport(examples));
  await client.request({ method: 'skills/list', params: {} }, listResult);
  await client.close();
}

/** The floor of a spawn: a node process that reads the SKILL.md and writes it out. */
function spawnToFileRead(): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      ['-e', `process.stdout.write(require('fs').readFileSync(${JSON.stringify(skillFile)}))`],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    child.stdout.resume();
    child.once('error', reject);
    child.once('exit', () => resolvePromise());
  });
}

async function allEntries(client: Client): Promise<Array<z.infer<typeof listResult>['skills'][number]>> {
  const entries: Array<z.infer<typeof listResult>['skills'][number]> = [];
  let cursor: string | undefined;
  do {
    const page = await client.request(
      { method: 'skills/list', params: cursor === undefined ? {} : { cursor } },
      listResult,
    );
    entries.push(...page.skills);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return entries;
}

/** A client connected to a fresh `skillbox mcp` over `root`. */
async function connectedClient(root: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(serverTransport(root));
  return client;
}

/**
 * Catalog tokens: what a host puts before the model from skills/list, against what skillbox's
 * tools carry. Takes a connected client so the examples reuse the server the calls were timed on.
 */
async function catalogTokens(label: string, client: Client): Promise<void> {
  const entries = await allEntries(client);
  // A host's catalog from the extension: one "name: description" line per skill (as the
  // extension's guidance and skillbox's own catalog write it), plus its loading tool.
  const hostCatalog = entries
    .map((entry) => `- ${String(entry.frontmatter.name)}: ${String(entry.frontmatter.description)}`)
    .join('\n');
  const listJson = JSON.stringify(entries);
  const skillLoad = (await client.listTools()).tools.find((tool) => tool.name === 'skill_load');
  const instructions = client.getInstructions() ?? '';
  const viaTools = countTokens(instructions) + countTokens(skillLoad?.description ?? '');
  console.log(
    `${label} (${entries.length} skills): extension catalog ${countTokens(hostCatalog)} tokens in the model's context (skills/list JSON the host reads: ${countTokens(listJson)} tokens, ${listJson.length} bytes); tools path: instructions + skill_load description ${viaTools} tokens (default 4,000-token budget, sent twice)`,
  );
}

export async function run(): Promise<void> {
  if (!existsSync(join(repositoryRoot, 'dist/cli/main.js'))) {
    console.log('mcp: dist/ is missing; run `npm run build` first');
    return;
  }
  const spawns = quick ? 3 : 8;
  const spawnTimes = await interleavedTimes({ server: spawnToFirstList, floor: spawnToFileRead }, spawns);
  console.log(
    `spawn to first skills/list answer: ${formatSpread(spreadOf(spawnTimes.server), 0, ' ms')}; floor (spawn node, read the SKILL.md) ${formatSpread(spreadOf(spawnTimes.floor), 0, ' ms')}`,
  );
  reportRatio({
    benchmark: 'mcp',
    comparison: 'spawn to skills/list / spawn node',
    ratio: pairedRatio(spawnTimes.server, spawnTimes.floor),
  });

  const client = await connectedClient(examples);
  try {
    await client.callTool({ name: 'skill_load', arguments: { skill: 'python-math' } });
    const calls = quick ? 50 : 500;
    const times = await interleavedTimes(
      {
        resourcesRead: () => client.readResource({ uri: 'skill://python-math/SKILL.md' }),
        skillLoad: () => client.callTool({ name: 'skill_load', arguments: { skill: 'python-math' } }),
        disk: () => readFile(skillFile),
      },
      calls,
      5,
    );
    const micro = (values: number[]) => formatSpread(spreadOf(values.map((value) => value * 1000)), 0, ' µs');
    console.log(
      `over stdio: resources/read of a SKILL.md ${micro(times.resourcesRead)}, skill_load ${micro(times.skillLoad)}; floor (readFile in this process) ${micro(times.disk)}`,
    );
    reportRatio({
      benchmark: 'mcp',
      comparison: 'resources/read SKILL.md / readFile',
      ratio: pairedRatio(times.resourcesRead, times.disk),
    });
    reportRatio({
      benchmark: 'mcp',
      comparison: 'skill_load / readFile',
      ratio: pairedRatio(times.skillLoad, times.disk),
    });
    await catalogTokens('examples', client);
  } finally {
    await client.close();
  }

  const corpus = corpusRoot();
  if (corpus === undefined) {
    console.log('corpus: not found (set SKILLBOX_CORPUS); catalog tokens measured on the examples only');
    return;
  }
  const corpusClient = await connectedClient(corpus);
  try {
    await catalogTokens('corpus', corpusClient);
  } finally {
    await corpusClient.close();
  }
}
