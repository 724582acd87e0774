import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusRoot, hasCorpus } from '../../../test/support/corpus.js';
import { parseSkillMarkdown } from '../../format/parse-skill.js';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import {
  contentBytes,
  digestOf,
  directoryResultSchema,
  getSkillResultSchema,
  listAllSkillPages,
} from './testing/skills-extension-client.js';

const repositoryRoot = resolve(import.meta.dirname, '../../..');
const entry = resolve(import.meta.dirname, 'testing/serve-from-cli.ts');
const tsx = resolve(repositoryRoot, 'node_modules/.bin/tsx');
const examples = resolve(repositoryRoot, 'examples/skills');

async function filesOnDisk(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((item) => item.isFile())
    .map((item) => relative(folder, join(item.parentPath, item.name)).split(sep).join('/'))
    .sort();
}

async function connect(root: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: tsx,
    args: [entry, '--root', root],
    cwd: repositoryRoot,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'skills-extension-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function errorOf(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('skillbox mcp serves the Skills Extension over stdio (example skills)', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(examples);
  }, 60_000);
  afterAll(async () => {
    await client.close();
  });

  it('declares the extension with directoryRead, and the resources and prompts capabilities', () => {
    const capabilities = client.getServerCapabilities();
    expect(capabilities?.extensions?.['io.modelcontextprotocol/skills']).toEqual({ directoryRead: true });
    expect(capabilities?.resources).toBeDefined();
    expect(capabilities?.prompts).toBeDefined();
  });

  it('lists every skill with its verbatim frontmatter and a complete manifest whose digests match the files on disk', async () => {
    const pages = await listAllSkillPages(client);
    const skills = pages.flatMap((page) => page.skills);
    expect(skills.map((skill) => skill.uri)).toEqual([
      'skill://file-ops/SKILL.md',
      'skill://python-math/SKILL.md',
      'skill://user-file-ops/SKILL.md',
      'skill://weather-tools/SKILL.md',
    ]);
    for (const page of pages) {
      expect(page.ttlMs).toBeGreaterThan(0);
      expect(page.cacheScope).toBe('public');
    }
    for (const skill of skills) {
      const name = skill.uri.split('/')[2] as string;
      const folder = join(examples, name);
      const markdown = await readFile(join(folder, 'SKILL.md'));
      expect(skill.frontmatter).toEqual(parseSkillMarkdown(markdown).frontmatter);
      expect(skill.frontmatter.name).toBe(name);
      if (skill.resources === 'dynamic') throw new Error('static skills must have a manifest');
      expect(skill.resources.map((file) => file.uri)).toEqual(
        (await filesOnDisk(folder)).map((path) => `skill://${name}/${path}`),
      );
      for (const file of skill.resources) {
        const bytes = await readFile(join(folder, file.uri.slice(`skill://${name}/`.length)));
        expect(file.digest).toBe(digestOf(bytes));
        expect(file.size).toBe(bytes.length);
      }
    }
  });

  it('serves through resources/read exactly the bytes of the manifest', async () => {
    const skills = (await listAllSkillPages(client)).flatMap((page) => page.skills);
    for (const skill of skills) {
      if (skill.resources === 'dynamic') continue;
      for (const file of skill.resources) {
        const { contents } = await client.readResource({ uri: file.uri });
        expect(contents).toHaveLength(1);
        const bytes = contentBytes(contents[0] as { text?: string; blob?: string });
        expect(bytes.length).toBe(file.size);
        expect(digestOf(bytes)).toBe(file.digest);
      }
    }
  });

  it('pages skills/list with an opaque cursor, one skill per page, never splitting a manifest', async () => {
    const transport = new StdioClientTransport({
      command: tsx,
      args: [resolve(import.meta.dirname, 'testing/serve-with-page-size.ts'), examples, '1'],
      cwd: repositoryRoot,
      stderr: 'ignore',
    });
    const paged = new Client({ name: 'paging-test', version: '1.0.0' });
    await paged.connect(transport);
    try {
      const pages = await listAllSkillPages(paged);
      expect(pages.map((page) => page.skills.length)).toEqual([1, 1, 1, 1]);
      expect(pages.slice(0, 3).every((page) => typeof page.nextCursor === 'string')).toBe(true);
      expect(pages[3]?.nextCursor).toBeUndefined();
      expect(pages.flatMap((page) => page.skills.map((skill) => skill.uri))).toEqual(
        (await listAllSkillPages(client)).flatMap((page) => page.skills.map((skill) => skill.uri)),
      );
      const refused = await errorOf(
        paged.request({ method: 'skills/list', params: { cursor: 'not-a-cursor' } }, getSkillResultSchema),
      );
      expect(refused.code).toBe(-32602);
    } finally {
      await paged.close();
    }
  }, 60_000);

  it('answers skills/get with the same entry, and -32602 for a URI that is not a skill', async () => {
    const listed = (await listAllSkillPages(client)).flatMap((page) => page.skills);
    const got = await client.request(
      { method: 'skills/get', params: { uri: 'skill://python-math/SKILL.md' } },
      getSkillResultSchema,
    );
    expect(got.skill).toEqual(listed.find((skill) => skill.uri === 'skill://python-math/SKILL.md'));
    expect(got.ttlMs).toBeGreaterThan(0);
    expect(got.cacheScope).toBe('public');
    for (const uri of [
      'skill://no-such-skill/SKILL.md',
      'skill://python-math/docs/usage.md',
      'skill://python-math/../file-ops/SKILL.md',
    ]) {
      const error = await errorOf(client.request({ method: 'skills/get', params: { uri } }, getSkillResultSchema));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain(uri);
    }
    expect((await errorOf(client.request({ method: 'skills/get', params: {} }, getSkillResultSchema))).code).toBe(
      -32602,
    );
  });

  it('reads directories one level deep, and refuses a directory read of a file and a read of a directory with -32602', async () => {
    const root = await client.request(
      { method: 'resources/directory/read', params: { uri: 'skill://python-math' } },
      directoryResultSchema,
    );
    expect(root.resources.map((item) => [item.name, item.mimeType])).toEqual([
      ['SKILL.md', 'text/markdown'],
      ['docs', 'inode/directory'],
      ['scripts', 'inode/directory'],
    ]);
    const scripts = await client.request(
      { method: 'resources/directory/read', params: { uri: 'skill://python-math/scripts' } },
      directoryResultSchema,
    );
    expect(scripts.resources.map((item) => item.uri)).toEqual([
      'skill://python-math/scripts/fib.py',
      'skill://python-math/scripts/primes.py',
      'skill://python-math/scripts/stats.py',
    ]);
    const ofFile = await errorOf(
      client.request(
        { method: 'resources/directory/read', params: { uri: 'skill://python-math/SKILL.md' } },
        directoryResultSchema,
      ),
    );
    expect(ofFile.code).toBe(-32602);
    expect(ofFile.message).toContain('is not a directory resource');
    const missing = await errorOf(
      client.request(
        { method: 'resources/directory/read', params: { uri: 'skill://python-math/nowhere' } },
        directoryResultSchema,
      ),
    );
    expect(missing.code).toBe(-32602);
    const ofDirectory = await errorOf(client.readResource({ uri: 'skill://python-math/scripts' }));
    expect(ofDirectory.code).toBe(-32602);
    const unknownPath = await errorOf(client.readResource({ uri: 'skill://python-math/secret.txt' }));
    expect(unknownPath.code).toBe(-32602);
    expect(unknownPath.message).toContain('has no file "secret.txt"');
    const unknownSkill = await errorOf(client.readResource({ uri: 'skill://nobody/SKILL.md' }));
    expect(unknownSkill.code).toBe(-32602);
  });

  it('lists each SKILL.md as a resource, a template for the other files, and one prompt per skill', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => [resource.uri, resource.name, resource.mimeType])).toEqual([
      ['skill://file-ops/SKILL.md', 'file-ops', 'text/markdown'],
      ['skill://python-math/SKILL.md', 'python-math', 'text/markdown'],
      ['skill://user-file-ops/SKILL.md', 'user-file-ops', 'text/markdown'],
      ['skill://weather-tools/SKILL.md', 'weather-tools', 'text/markdown'],
    ]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['skill://{skill}/{+path}']);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['file-ops', 'python-math', 'user-file-ops', 'weather-tools']);
    const prompt = await client.getPrompt({ name: 'python-math' });
    const body = parseSkillMarkdown(await readFile(join(examples, 'python-math/SKILL.md'))).body;
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: body } }]);
    expect((await errorOf(client.getPrompt({ name: 'nobody' }))).code).toBe(-32602);
  });

  it('annotates the knowledge tools as read-only', async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
  });
});

describe.runIf(hasCorpus)('skillbox mcp serves the Skills Extension over stdio (the corpus)', () => {
  it('lists every servable corpus skill across pages; every digest recomputed from disk matches', async () => {
    const root = corpusRoot;
    const repository = await FsSkillRepository.open({ roots: [root] });
    const summaries = (await repository.list()).filter((skill) => skill.modelInvocable !== false);
    const client = await connect(root);
    try {
      const pages = await listAllSkillPages(client);
      expect(pages.length).toBeGreaterThan(1);
      const skills = pages.flatMap((page) => page.skills);
      const names = skills.map((skill) => decodeURIComponent(skill.uri.split('/')[2] as string));
      expect(new Set(names).size).toBe(names.length);
      expect(names).toEqual(summaries.map((skill) => skill.name));
      let files = 0;
      for (const [index, skill] of skills.entries()) {
        const folder = summaries[index]?.path as string;
        if (skill.resources === 'dynamic') throw new Error(`${skill.uri} is dynamic`);
        const prefix = skill.uri.slice(0, -'SKILL.md'.length);
        expect(skill.resources.map((file) => file.uri)).toContain(skill.uri);
        for (const file of skill.resources) {
          const path = file.uri.slice(prefix.length).split('/').map(decodeURIComponent).join('/');
          const bytes = await readFile(join(folder, path));
          expect(file.digest, file.uri).toBe(digestOf(bytes));
          expect(file.size, file.uri).toBe(bytes.length);
          files += 1;
        }
      }
      expect(files).toBeGreaterThan(skills.length);
      // One SKILL.md read back, chosen from the middle of the listing.
      const middle = skills[Math.floor(skills.length / 2)];
      const read = await client.readResource({ uri: middle?.uri as string });
      const manifestEntry =
        middle?.resources === 'dynamic' ? undefined : middle?.resources.find((file) => file.uri === middle.uri);
      expect(digestOf(contentBytes(read.contents[0] as { text?: string }))).toBe(manifestEntry?.digest);
    } finally {
      await client.close();
    }
  }, 180_000);
});
