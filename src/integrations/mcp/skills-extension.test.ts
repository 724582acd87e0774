import { writeFile } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../../config/config-error.js';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { createSkillTree, type SkillTree, skillMarkdown } from '../../repository/testing/skill-tree.js';
import type { SkillRepository } from '../../repository/types.js';
import { createRuntime } from '../../runtime/create-runtime.js';
import { createExecutionTools } from '../../workspace/tools/execution-tools.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';
import { createSkillMcpServer } from './skill-mcp-server.js';
import {
  contentBytes,
  digestOf,
  getSkillResultSchema,
  listAllSkillPages,
  listSkillsResultSchema,
} from './testing/skills-extension-client.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function tree(entries: Parameters<typeof createSkillTree>[0]): Promise<SkillTree> {
  const created = await createSkillTree(entries);
  cleanups.push(() => created.remove());
  return created;
}

async function connect(repository: SkillRepository, extra: { skillContext?: { userId: string } } = {}) {
  const logs: string[] = [];
  const served = await createSkillMcpServer({ repository, log: (line) => logs.push(line), ...extra });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'extension-test', version: '1.0.0' });
  await served.server.connect(serverTransport);
  await client.connect(clientTransport);
  cleanups.push(async () => {
    await client.close();
  });
  return { client, logs };
}

async function errorOf(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('the Skills Extension on createSkillMcpServer', () => {
  it('serves the bytes it hashed: a file edited after the listing is still read as listed, and skills/get shows the edit', async () => {
    const skills = await tree({
      'notes/SKILL.md': skillMarkdown('notes', 'Keeps notes'),
      'notes/docs/guide.md': 'first version\n',
    });
    const { client } = await connect(await FsSkillRepository.open({ roots: [skills.dir] }));
    const [listed] = (await listAllSkillPages(client)).flatMap((page) => page.skills);
    const guide =
      listed?.resources === 'dynamic' ? undefined : listed?.resources.find((file) => file.uri.endsWith('guide.md'));
    expect(guide?.digest).toBe(digestOf(Buffer.from('first version\n')));

    await writeFile(skills.path('notes/docs/guide.md'), 'second version, longer\n');
    const read = await client.readResource({ uri: 'skill://notes/docs/guide.md' });
    expect(contentBytes(read.contents[0] as { text?: string }).toString()).toBe('first version\n');

    const got = await client.request(
      { method: 'skills/get', params: { uri: 'skill://notes/SKILL.md' } },
      getSkillResultSchema,
    );
    const fresh =
      got.skill.resources === 'dynamic' ? undefined : got.skill.resources.find((file) => file.uri.endsWith('guide.md'));
    expect(fresh).toEqual({
      uri: 'skill://notes/docs/guide.md',
      digest: digestOf(Buffer.from('second version, longer\n')),
      size: 23,
    });
    const reread = await client.readResource({ uri: 'skill://notes/docs/guide.md' });
    expect(contentBytes(reread.contents[0] as { text?: string }).toString()).toBe('second version, longer\n');
  });

  it('serves a binary file as a base64 blob whose decoded bytes match the digest', async () => {
    const binary = Buffer.from([0, 255, 128, 10, 0xc3, 0x28]);
    const skills = await tree({
      'images/SKILL.md': skillMarkdown('images', 'Has a binary'),
      'images/logo.png': binary,
    });
    const { client } = await connect(await FsSkillRepository.open({ roots: [skills.dir] }));
    const [entry] = (await listAllSkillPages(client)).flatMap((page) => page.skills);
    const logo =
      entry?.resources === 'dynamic' ? undefined : entry?.resources.find((file) => file.uri.endsWith('logo.png'));
    const read = await client.readResource({ uri: 'skill://images/logo.png' });
    const content = read.contents[0] as { blob?: string; mimeType?: string };
    expect(content.mimeType).toBe('image/png');
    expect(Buffer.from(content.blob as string, 'base64')).toEqual(binary);
    expect(logo).toEqual({ uri: 'skill://images/logo.png', digest: digestOf(binary), size: binary.length });
  });

  it('percent-encodes file names in URIs and reads them back', async () => {
    const skills = await tree({ 'odd/SKILL.md': skillMarkdown('odd', 'Odd names'), 'odd/my notes #1.md': 'hello\n' });
    const { client } = await connect(await FsSkillRepository.open({ roots: [skills.dir] }));
    const [entry] = (await listAllSkillPages(client)).flatMap((page) => page.skills);
    const uris = entry?.resources === 'dynamic' ? [] : (entry?.resources.map((file) => file.uri) ?? []);
    expect(uris).toContain('skill://odd/my%20notes%20%231.md');
    const read = await client.readResource({ uri: 'skill://odd/my%20notes%20%231.md' });
    expect((read.contents[0] as { text?: string }).text).toBe('hello\n');
  });

  it('refuses a skill over 512 files with a message naming it, and leaves it out of skills/list', async () => {
    const files: Record<string, string> = { 'huge/SKILL.md': skillMarkdown('huge', 'Too many files') };
    for (let index = 0; index < 512; index += 1) files[`huge/data/${index}.txt`] = `${index}\n`;
    files['small/SKILL.md'] = skillMarkdown('small', 'Fine');
    const skills = await tree(files);
    const { client, logs } = await connect(await FsSkillRepository.open({ roots: [skills.dir] }));
    const listed = (await listAllSkillPages(client)).flatMap((page) => page.skills);
    expect(listed.map((skill) => skill.uri)).toEqual(['skill://small/SKILL.md']);
    expect(logs.join('\n')).toContain('skill "huge" has 513 files, over the Skills Extension\'s limits');
    const refused = await errorOf(
      client.request({ method: 'skills/get', params: { uri: 'skill://huge/SKILL.md' } }, getSkillResultSchema),
    );
    expect(refused.code).toBe(-32603);
    expect(refused.message).toContain('skill "huge" has 513 files');
  });

  it('refuses a skill over 16 MiB in all with a message naming it', async () => {
    const nine = Buffer.alloc(9 * 1024 * 1024, 97);
    const skills = await tree({
      'heavy/SKILL.md': skillMarkdown('heavy', 'Too big'),
      'heavy/a.bin': nine,
      'heavy/b.bin': nine,
    });
    const { client } = await connect(
      await FsSkillRepository.open({ roots: [skills.dir], maxReadableFileBytes: 10 * 1024 * 1024 }),
    );
    const refused = await errorOf(
      client.request({ method: 'skills/get', params: { uri: 'skill://heavy/SKILL.md' } }, getSkillResultSchema),
    );
    expect(refused.message).toContain('skill "heavy" has more than 16777216 bytes of files');
  });

  it('serves hidden skills through skills/get and prompts but leaves them out of skills/list', async () => {
    const skills = await tree({
      'shown/SKILL.md': skillMarkdown('shown', 'Shown'),
      'quiet/SKILL.md': '---\nname: quiet\ndescription: Only for people\ndisable-model-invocation: true\n---\nBody\n',
    });
    const { client } = await connect(await FsSkillRepository.open({ roots: [skills.dir] }));
    const listed = await client.request({ method: 'skills/list', params: {} }, listSkillsResultSchema);
    expect(listed.skills.map((skill) => skill.uri)).toEqual(['skill://shown/SKILL.md']);
    const got = await client.request(
      { method: 'skills/get', params: { uri: 'skill://quiet/SKILL.md' } },
      getSkillResultSchema,
    );
    expect(got.skill.frontmatter).toEqual({
      name: 'quiet',
      description: 'Only for people',
      'disable-model-invocation': true,
    });
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['quiet', 'shown']);
  });

  it('marks results private when a visibility context is set', async () => {
    const skills = await tree({ 'mine/SKILL.md': skillMarkdown('mine', 'Mine') });
    const { client } = await connect(await FsSkillRepository.open({ roots: [skills.dir] }), {
      skillContext: { userId: 'alice' },
    });
    const listed = await client.request({ method: 'skills/list', params: {} }, listSkillsResultSchema);
    expect(listed.cacheScope).toBe('private');
  });

  it('annotates skill_run and workspace_exec as destructive and open-world, the knowledge tools as read-only', async () => {
    const skills = await tree({ 'tool/SKILL.md': skillMarkdown('tool', 'Runs things') });
    const repository = await FsSkillRepository.open({ roots: [skills.dir] });
    const baseDir = (await tree({})).dir;
    const executionTools = createExecutionTools({
      workspaces: createWorkspaceManager({ runtime: createRuntime({ kind: 'local' }), repository, baseDir }),
    });
    const served = await createSkillMcpServer({ repository, profile: 'full', executionTools, log: () => undefined });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'annotations-test', version: '1.0.0' });
    await served.server.connect(serverTransport);
    await client.connect(clientTransport);
    cleanups.push(() => client.close());
    const annotations = Object.fromEntries(
      (await client.listTools()).tools.map((tool) => [tool.name, tool.annotations]),
    );
    for (const name of ['skill_run', 'workspace_exec'])
      expect(annotations[name]).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    for (const name of ['skill_load', 'skill_list_docs', 'skill_select_docs', 'skill_read'])
      expect(annotations[name]).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
  });

  it('refuses a skills page size that is not a whole number with the option named', async () => {
    const repository = await FsSkillRepository.open({ roots: [(await tree({})).dir] });
    await expect(createSkillMcpServer({ repository, skillsPageSize: 0 })).rejects.toThrow(SkillboxConfigError);
    await expect(createSkillMcpServer({ repository, skillsPageSize: 0 })).rejects.toThrow(/skillsPageSize/);
  });
});
