import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsSkillRepository } from '../repository/fs-skill-repository.js';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { createInMemoryStateView } from '../state/in-memory-state-view.js';
import { docsKey, loadedKey } from '../state/state-keys.js';
import { createSkillTools } from '../tools/create-skill-tools.js';
import { materializeRequest } from './materialize-request.js';

const bigDoc = `${'数据 line of a very long reference\n'.repeat(10_000)}`;
const repository = createMemorySkillRepository([
  { name: 'alpha', description: 'a', body: 'Alpha body.', files: { 'big.md': bigDoc, 'small.md': 'small doc' } },
  { name: 'beta', description: 'b', body: 'Beta body.', files: { 'other.md': 'x'.repeat(5000) } },
]);
const state = new Map([
  [loadedKey('assistant', 'alpha'), '1'],
  [docsKey('assistant', 'alpha'), '["big.md","small.md"]'],
  [loadedKey('assistant', 'beta'), '1'],
  [docsKey('assistant', 'beta'), '*'],
]);

async function systemText(docLimits?: { maxDocBytes?: number; maxTotalBytes?: number }): Promise<string> {
  const messages = await materializeRequest({
    messages: [{ role: 'system', content: 'S' }],
    state,
    agentName: 'assistant',
    repository,
    ...(docLimits ? { docLimits } : {}),
  });
  return messages[0]!.content as string;
}

describe('materializeRequest doc limits', () => {
  it('cuts a doc at the per-doc default and names the skill_read call that continues it', async () => {
    const text = await systemText();
    const total = Buffer.byteLength(bigDoc);
    const marker = new RegExp(
      `\\[truncated at byte (\\d+) of ${total}: docs are shown up to 20000 bytes; call skill_read \\{"skill":"alpha","path":"big.md","offset":(\\d+)\\} for the rest\\]`,
    );
    const match = marker.exec(text);
    expect(match).not.toBeNull();
    expect(Number(match![1])).toBe(Number(match![2]));
    expect(Number(match![1])).toBeLessThanOrEqual(20_000);
    expect(Number(match![1])).toBeGreaterThan(19_990);
    expect(text).not.toContain('\uFFFD');
    expect(text).toContain('[Doc] small.md\n\nsmall doc');
    expect(text.length).toBeLessThan(30_000);
  });

  it('shares a total limit across skills, filled in name order', async () => {
    const text = await systemText({ maxDocBytes: 4000, maxTotalBytes: 4100 });
    const first =
      /\[truncated at byte (\d+) of \d+: docs are shown up to 4000 bytes; call skill_read \{"skill":"alpha","path":"big.md","offset":\d+\}/.exec(
        text,
      );
    expect(first).not.toBeNull();
    // What is left of the 4,100 bytes after the big doc's page and the small doc goes to beta.
    const left = 4100 - Number(first![1]) - 'small doc'.length;
    expect(left).toBeGreaterThan(90);
    expect(text).toContain('[Doc] small.md\n\nsmall doc');
    expect(text).toContain(
      `[Doc] other.md\n\n${'x'.repeat(left)}\n\n[truncated at byte ${left} of 5000: this request's limit for loaded docs is used up; call skill_read {"skill":"beta","path":"other.md","offset":${left}} for the rest]`,
    );
  });

  it('refuses a limit that is not a whole number of bytes', async () => {
    await expect(systemText({ maxDocBytes: -1 })).rejects.toThrow(/docLimits.maxDocBytes/);
  });
});

describe('files over the repository read limit', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'skillbox-large-'));
    await mkdir(join(root, 'huge'));
    await writeFile(join(root, 'huge', 'SKILL.md'), '---\nname: huge\ndescription: Has a large file.\n---\nBody.\n');
    await writeFile(join(root, 'huge', 'data.md'), 'y'.repeat(5000));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('are named as not readable in a request and as a clear skill_read error', async () => {
    const fsRepository = await createFsSkillRepository({ roots: [root], maxReadableFileBytes: 4096 });
    const loaded = new Map([
      [loadedKey('assistant', 'huge'), '1'],
      [docsKey('assistant', 'huge'), '["data.md"]'],
    ]);
    const messages = await materializeRequest({
      messages: [],
      state: loaded,
      agentName: 'assistant',
      repository: fsRepository,
    });
    expect(messages[0]!.content).toContain(
      'Docs loaded: none\nDocs not readable: data.md (the file is 5000 bytes, over the 4096-byte limit (maxReadableFileBytes))',
    );
    const read = createSkillTools({ repository: fsRepository }).find((tool) => tool.name === 'skill_read')!;
    await expect(
      read.execute(
        { skill: 'huge', path: 'data.md' },
        { sessionId: 's', agentName: 'assistant', state: createInMemoryStateView() },
      ),
    ).rejects.toThrow(
      'cannot read file "data.md" of skill "huge": the file is 5000 bytes, over the 4096-byte limit (maxReadableFileBytes). It cannot be shown; call skill_read {"skill":"huge"} for its other files, or run a script of the skill that reads it.',
    );
  });
});
