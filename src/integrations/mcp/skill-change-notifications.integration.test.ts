import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createSkillTree, type SkillTree, skillMarkdown } from '../../repository/testing/skill-tree.js';
import { McpSkillRepository } from './mcp-skill-repository.js';
import { listAllSkillPages } from './testing/skills-extension-client.js';

const repositoryRoot = resolve(import.meta.dirname, '../../..');
const entry = resolve(import.meta.dirname, 'testing/serve-from-cli.ts');
const tsx = resolve(repositoryRoot, 'node_modules/.bin/tsx');
let tree: SkillTree | undefined;
afterEach(async () => {
  await tree?.remove();
  tree = undefined;
});

async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A real SDK client connected to `skillbox mcp ARGS` (spawned), recording the list_changed notifications. */
async function connect(args: string[]): Promise<{ client: Client; received: string[] }> {
  const client = new Client({ name: 'watch-test', version: '1.0.0' });
  const received: string[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void received.push('tools'));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void received.push('resources'));
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => void received.push('prompts'));
  await client.connect(
    new StdioClientTransport({ command: tsx, args: [entry, ...args], cwd: repositoryRoot, stderr: 'ignore' }),
  );
  return { client, received };
}

describe('skillbox mcp tells clients when skills change on disk', () => {
  it('sends the tools, resources and prompts list_changed notifications, and the lists show the new skill', async () => {
    tree = await createSkillTree({ 'first/SKILL.md': skillMarkdown('first', 'The first skill') });
    const client = new Client({ name: 'watch-test', version: '1.0.0' });
    const received: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void received.push('tools'));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void received.push('resources'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void received.push('prompts'));
    await client.connect(
      new StdioClientTransport({
        command: tsx,
        args: [entry, '--root', tree.dir],
        cwd: repositoryRoot,
        stderr: 'ignore',
      }),
    );
    try {
      expect((await listAllSkillPages(client)).flatMap((page) => page.skills).map((skill) => skill.uri)).toEqual([
        'skill://first/SKILL.md',
      ]);
      await tree.write({ 'second/SKILL.md': skillMarkdown('second', 'Added while the server runs') });
      await eventually(
        () => ['tools', 'resources', 'prompts'].every((kind) => received.includes(kind)),
        'three list_changed notifications',
      );
      expect((await listAllSkillPages(client)).flatMap((page) => page.skills).map((skill) => skill.uri)).toEqual([
        'skill://first/SKILL.md',
        'skill://second/SKILL.md',
      ]);
      expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['first', 'second']);
      const skillLoad = (await client.listTools()).tools.find((tool) => tool.name === 'skill_load');
      expect(skillLoad?.description).toContain('- second: Added while the server runs');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('announces an edited or added script (not only SKILL.md), and the listing carries its new digest', async () => {
    tree = await createSkillTree({
      'first/SKILL.md': skillMarkdown('first', 'The first skill'),
      'first/scripts/run.sh': 'echo one\n',
    });
    const { client, received } = await connect(['--root', tree.dir]);
    try {
      const scriptDigest = async (path: string) =>
        (await listAllSkillPages(client))
          .flatMap((page) => page.skills)
          .flatMap((skill) => (skill.resources === 'dynamic' ? [] : skill.resources))
          .find((file) => file.uri === `skill://first/${path}`)?.digest;
      const before = await scriptDigest('scripts/run.sh');
      expect(before).toMatch(/^sha256:/);
      await tree.write({ 'first/scripts/run.sh': 'echo two\n' });
      await eventually(() => received.includes('resources'), 'resources/list_changed after a script edit');
      expect(await scriptDigest('scripts/run.sh')).not.toBe(before);
      received.length = 0;
      await tree.write({ 'first/scripts/extra.py': 'print(1)\n' });
      await eventually(() => received.includes('resources'), 'resources/list_changed after a script was added');
      expect(await scriptDigest('scripts/extra.py')).toMatch(/^sha256:/);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('follows the roots with --profile full too, whose model view is gated by requirements', async () => {
    tree = await createSkillTree({ 'first/SKILL.md': skillMarkdown('first', 'The first skill') });
    const { client, received } = await connect(['--root', tree.dir, '--profile', 'full', '--runtime', 'local']);
    try {
      await tree.write({ 'second/SKILL.md': skillMarkdown('second', 'Added while a full server runs') });
      await eventually(
        () => ['tools', 'resources', 'prompts'].every((kind) => received.includes(kind)),
        'three list_changed notifications',
      );
      const skillLoad = (await client.listTools()).tools.find((tool) => tool.name === 'skill_load');
      expect(skillLoad?.description).toContain('- second: Added while a full server runs');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('--no-watch serves the skills as they were at start and sends nothing', async () => {
    tree = await createSkillTree({ 'first/SKILL.md': skillMarkdown('first', 'The first skill') });
    const { client, received } = await connect(['--root', tree.dir, '--no-watch']);
    try {
      await tree.write({ 'second/SKILL.md': skillMarkdown('second', 'Added, not followed') });
      // Ten debounce windows of the watching server, which answers within one.
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 1500));
      expect(received).toEqual([]);
      const skillLoad = (await client.listTools()).tools.find((tool) => tool.name === 'skill_load');
      expect(skillLoad?.description).not.toContain('second');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('McpSkillRepository re-lists after the server says its resources changed', async () => {
    tree = await createSkillTree({ 'first/SKILL.md': skillMarkdown('first', 'The first skill') });
    const repository = await McpSkillRepository.connect({
      servers: [{ label: 'watched', command: tsx, args: [entry, '--root', tree.dir], cwd: repositoryRoot }],
    });
    try {
      const generation = repository.generation();
      await tree.write({ 'second/SKILL.md': skillMarkdown('second', 'Added later') });
      await eventually(async () => (await repository.list()).length === 2, 'the repository to see the new skill');
      expect(repository.generation()).toBeGreaterThan(generation);
      expect((await repository.get('second')).description).toBe('Added later');
    } finally {
      await repository.close();
    }
  }, 60_000);
});
