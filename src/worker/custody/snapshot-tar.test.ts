import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readlink, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { restoreWorkspaceSnapshot } from './snapshot-tar-reader.js';
import { writeWorkspaceSnapshot } from './snapshot-tar-writer.js';
import { folderTree } from './testing/folder-tree.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillbox-snapshot-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function snapshotBytes(folder: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of writeWorkspaceSnapshot(folder)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function* chunksOf(bytes: Buffer): AsyncGenerator<Buffer> {
  for (let offset = 0; offset < bytes.length; offset += 1000) yield bytes.subarray(offset, offset + 1000);
}

const longName = `${'deep-'.repeat(30)}file.txt`;

async function sampleWorkspace(folder: string): Promise<void> {
  await mkdir(join(folder, 'out', 'nested'), { recursive: true });
  await writeFile(join(folder, 'out', 'report.md'), '# report\n');
  await writeFile(join(folder, 'out', 'nested', longName), 'long name');
  await writeFile(join(folder, 'résumé – 12:00.txt'), 'unicode and a colon');
  await writeFile(join(folder, 'empty'), '');
  await writeFile(join(folder, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  await chmod(join(folder, 'run.sh'), 0o755);
  await writeFile(join(folder, 'big.bin'), Buffer.alloc(3 * 256 * 1024 + 17, 7));
  await symlink('out/report.md', join(folder, 'latest'));
  await symlink(`../${'x'.repeat(120)}`, join(folder, 'out', 'long-link'));
}

describe('workspace snapshots', () => {
  it('round-trips a workspace: content, folders, permission bits, links, long and non-ASCII names', async () => {
    const source = join(root, 'source');
    const target = join(root, 'target');
    await mkdir(source);
    await mkdir(target);
    await sampleWorkspace(source);
    const bytes = await snapshotBytes(source);
    await restoreWorkspaceSnapshot(chunksOf(bytes), target, {
      digest: createHash('sha256').update(bytes).digest('hex'),
    });
    expect(await folderTree(target, { modes: true })).toEqual(await folderTree(source, { modes: true }));
  });

  it('is deterministic: the same content gives the same bytes whatever the mtimes and creation order', async () => {
    const first = join(root, 'first');
    const second = join(root, 'second');
    await mkdir(first);
    await mkdir(second);
    await sampleWorkspace(first);
    await sampleWorkspace(second);
    await utimes(join(second, 'run.sh'), new Date(2001, 1, 1), new Date(2001, 1, 1));
    expect((await snapshotBytes(first)).equals(await snapshotBytes(second))).toBe(true);
    await writeFile(join(second, 'empty'), 'changed');
    expect((await snapshotBytes(first)).equals(await snapshotBytes(second))).toBe(false);
  });

  it('is a tar GNU tar reads and extracts to the same tree', async () => {
    const source = join(root, 'source');
    const extracted = join(root, 'extracted');
    await mkdir(source);
    await mkdir(extracted);
    await sampleWorkspace(source);
    await writeFile(join(root, 'snapshot.tar'), await snapshotBytes(source));
    const listing = execFileSync('tar', ['-tvf', join(root, 'snapshot.tar')], { encoding: 'utf8' });
    expect(listing).toContain(`out/nested/${longName}`);
    expect(listing).toContain(' 0/0 ');
    expect(listing).toContain('1970-01-01 00:00 run.sh');
    execFileSync('tar', ['-xf', join(root, 'snapshot.tar'), '-C', extracted]);
    expect(await folderTree(extracted, { modes: true })).toEqual(await folderTree(source, { modes: true }));
  });

  it("keeps a virtualenv's absolute and climbing links as links, and brings them back", async () => {
    const source = join(root, 'source');
    await mkdir(join(source, '.venv', 'bin'), { recursive: true });
    await writeFile(join(source, 'ok.txt'), 'ok');
    await symlink('/usr/bin/python3', join(source, '.venv', 'bin', 'python'));
    await symlink('../../ok.txt', join(source, '.venv', 'bin', 'up'));
    const bytes = await snapshotBytes(source);
    const copy = join(root, 'copy');
    await mkdir(copy);
    await restoreWorkspaceSnapshot(chunksOf(bytes), copy);
    expect(await readlink(join(copy, '.venv', 'bin', 'python'))).toBe('/usr/bin/python3');
    expect(await readlink(join(copy, '.venv', 'bin', 'up'))).toBe('../../ok.txt');
  });

  it('streams: no chunk it yields is larger than its 256 KiB read buffer, whatever the file size', async () => {
    const source = join(root, 'source');
    await mkdir(source);
    await writeFile(join(source, 'large.bin'), Buffer.alloc(8 * 1024 * 1024 + 5, 1));
    let largest = 0;
    let total = 0;
    for await (const chunk of writeWorkspaceSnapshot(source)) {
      largest = Math.max(largest, chunk.length);
      total += chunk.length;
    }
    expect(total).toBeGreaterThan(8 * 1024 * 1024);
    expect(largest).toBeLessThanOrEqual(256 * 1024);
  });

  it('leaves out FIFOs, which carry no content', async () => {
    const source = join(root, 'source');
    await mkdir(source);
    await writeFile(join(source, 'kept.txt'), 'kept');
    execFileSync('mkfifo', [join(source, 'pipe')]);
    const listing = (await snapshotBytes(source)).toString('latin1');
    expect(listing).toContain('kept.txt');
    expect(listing).not.toContain('pipe');
  });
});
