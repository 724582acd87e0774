// Hostile workspace snapshots, as someone who can write to the snapshot store (or forge what it
// returns) would build them. Each is restored into an empty folder beside a folder of secrets: it
// must be refused with an error naming the entry, nothing written outside, and the target folder
// left empty (nothing partially restored).
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UnsafeArchiveError } from '../../src/repository/archive/errors.js';
import { paxRecords, type TarMember, tarArchive } from '../../src/repository/archive/testing/archive-writers.js';
import { HostWorkspaceFiles } from '../../src/runtime/host-workspace-files.js';
import { restoreWorkspaceSnapshot } from '../../src/worker/custody/snapshot-tar-reader.js';
import { folderTree } from '../../src/worker/custody/testing/folder-tree.js';

let root: string;
let outside: string;
let target: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillbox-snapshot-attack-'));
  outside = join(root, 'outside');
  target = join(root, 'target');
  await mkdir(outside);
  await mkdir(target);
  await writeFile(join(outside, 'secret.txt'), 'secret');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function* chunksOf(bytes: Buffer, size = 700): AsyncGenerator<Buffer> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

/** Restores `members` and returns the refusal, after checking nothing was left anywhere. */
async function refusal(
  members: TarMember[],
  options: Parameters<typeof restoreWorkspaceSnapshot>[2] = {},
): Promise<UnsafeArchiveError> {
  const before = await folderTree(root);
  const error = await restoreWorkspaceSnapshot(chunksOf(tarArchive(members)), target, options).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UnsafeArchiveError);
  expect(await readdir(target)).toEqual([]);
  expect(await folderTree(root)).toEqual(before);
  return error as UnsafeArchiveError;
}

const ordinary: TarMember[] = [
  { name: 'notes/', type: '5' },
  { name: 'notes/first.txt', data: 'restored before the hostile entry' },
];

describe('restoring a hostile workspace snapshot', () => {
  it('refuses climbing names, naming the entry', async () => {
    for (const name of ['../outside/planted.txt', 'notes/../../outside/planted.txt', '..']) {
      const error = await refusal([...ordinary, { name, data: 'planted' }]);
      expect(error.entry).toBe(name);
      expect(error.message).toContain('".."');
    }
  });

  it('refuses a climbing name given by a pax record', async () => {
    const error = await refusal([
      ...ordinary,
      { name: 'PaxHeader', type: 'x', data: paxRecords({ path: '../outside/planted.txt' }) },
      { name: 'innocent.txt', data: 'planted' },
    ]);
    expect(error.entry).toBe('../outside/planted.txt');
  });

  it('refuses absolute names', async () => {
    const name = join(outside, 'planted.txt');
    const error = await refusal([...ordinary, { name, data: 'planted' }]);
    expect(error.entry).toBe(name);
    expect(error.message).toContain('absolute');
  });

  it('refuses a symbolic link followed by a file written through it', async () => {
    const error = await refusal([
      ...ordinary,
      { name: 'escape', type: '2', linkName: '../outside' },
      { name: 'escape/secret.txt', data: 'overwritten' },
    ]);
    expect(error.entry).toBe('escape/secret.txt');
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
  });

  it('refuses a file through a link that points inside as well', async () => {
    const error = await refusal([
      ...ordinary,
      { name: 'alias', type: '2', linkName: 'notes' },
      { name: 'alias/first.txt', data: 'second copy' },
    ]);
    expect(error.entry).toBe('alias/first.txt');
  });

  it('restores links that point outside as links, and writes nothing through them', async () => {
    // A command may make such links itself (a virtualenv's `python -> /usr/bin/python3`); a restore
    // brings them back as names. What an attacker wants is a write through one: refused above.
    const links: TarMember[] = [
      { name: 'up', type: '2', linkName: '../outside' },
      { name: 'absolute', type: '2', linkName: outside },
      { name: 'notes/a', type: '2', linkName: '..' },
      { name: 'notes/b', type: '2', linkName: 'a/../outside' },
      { name: 'loop-a', type: '2', linkName: 'loop-b' },
      { name: 'loop-b', type: '2', linkName: 'loop-a' },
    ];
    const before = await folderTree(outside);
    await restoreWorkspaceSnapshot(chunksOf(tarArchive([...ordinary, ...links])), target);
    for (const link of links) expect(await readlink(join(target, link.name))).toBe(link.linkName);
    expect(await folderTree(outside)).toEqual(before);
    const files = new HostWorkspaceFiles(target);
    await expect(files.read('up/secret.txt', 1024)).rejects.toMatchObject({ code: 'WORKSPACE_PATH_REFUSED' });
    expect(await files.resolve(['absolute', 'notes/b'])).toEqual([{ inside: false }, { inside: false }]);
  });

  it('refuses a file or a link with an empty name, rather than restoring it under a made-up one', async () => {
    for (const member of [
      { name: '', type: '2', linkName: '..' },
      { name: '', data: 'nameless' },
    ] satisfies TarMember[]) {
      const error = await refusal([...ordinary, member]);
      expect(error.entry).toBe('(empty name)');
      expect(error.message).toContain('no name');
    }
  });

  it('refuses an empty link target', async () => {
    const error = await refusal([...ordinary, { name: 'nowhere', type: '2', linkName: '' }]);
    expect(error.entry).toBe('nowhere');
  });

  it('refuses hard links, even to a file inside', async () => {
    for (const linkName of [join(outside, 'secret.txt'), '../outside/secret.txt', 'notes/first.txt']) {
      const error = await refusal([...ordinary, { name: 'hard', type: '1', linkName }]);
      expect(error.entry).toBe('hard');
      expect(error.message).toContain('hard links');
    }
  });

  it('refuses devices and FIFOs', async () => {
    for (const type of ['3', '4', '6']) {
      const error = await refusal([...ordinary, { name: `special-${type}`, type }]);
      expect(error.entry).toBe(`special-${type}`);
      expect(error.message).toContain('devices and FIFOs');
    }
  });

  it('refuses a huge declared size before reading or writing any of it', async () => {
    const error = await refusal([
      ...ordinary,
      { name: 'PaxHeader', type: 'x', data: paxRecords({ size: String(2 ** 50) }) },
      { name: 'huge.bin', data: 'small' },
    ]);
    expect(error.entry).toBe('huge.bin');
    expect(error.message).toContain('maxEntryBytes');
  });

  it('refuses a tar bomb of many entries at the entry past the limit', async () => {
    const many: TarMember[] = Array.from({ length: 2_000 }, (_, index) => ({ name: `bomb/${index}`, data: '' }));
    const error = await refusal([...ordinary, ...many], { limits: { maxEntries: 1_000 } });
    // notes/ and notes/first.txt are two; bomb/ is made by its files, not an entry.
    expect(error.entry).toBe('bomb/998');
    expect(error.message).toContain('maxEntries');
  });

  it('refuses files that together pass the total limit', async () => {
    const error = await refusal(
      [...ordinary, { name: 'a.bin', data: 'x'.repeat(600) }, { name: 'b.bin', data: 'x'.repeat(600) }],
      { limits: { maxTotalBytes: 1_000 } },
    );
    expect(error.entry).toBe('b.bin');
  });

  it('refuses a second entry of the same path, which could replace the first', async () => {
    const error = await refusal([...ordinary, { name: 'notes/first.txt', data: 'replaced' }]);
    expect(error.entry).toBe('notes/first.txt');
  });

  it('refuses, naming it, an entry the file system cannot hold (a name over 255 bytes)', async () => {
    const name = `notes/${'n'.repeat(300)}`;
    const error = await refusal([
      ...ordinary,
      { name: 'PaxHeader', type: 'x', data: paxRecords({ path: name }) },
      { name: 'placeholder', data: 'x' },
    ]);
    expect(error.entry).toBe(name);
    expect(error.message).toContain('cannot be written');
  });

  it('refuses a truncated snapshot and one whose bytes do not match its name', async () => {
    const whole = tarArchive(ordinary);
    const before = await folderTree(root);
    await expect(restoreWorkspaceSnapshot(chunksOf(whole.subarray(0, 700)), target)).rejects.toThrow(/truncated/);
    expect(await readdir(target)).toEqual([]);
    const forgedName = createHash('sha256').update('something else').digest('hex');
    await expect(restoreWorkspaceSnapshot(chunksOf(whole), target, { digest: forgedName })).rejects.toThrow(
      /hash to [0-9a-f]{64}, not to/,
    );
    expect(await readdir(target)).toEqual([]);
    expect(await folderTree(root)).toEqual(before);
  });

  it('refuses to restore into a folder that is not empty', async () => {
    await writeFile(join(target, 'kept.txt'), 'kept');
    await expect(restoreWorkspaceSnapshot(chunksOf(tarArchive(ordinary)), target)).rejects.toThrow(/not empty/);
    expect(await readdir(target)).toEqual(['kept.txt']);
  });

  it('restores an honest snapshot (the checks refuse only what they should)', async () => {
    const members: TarMember[] = [
      ...ordinary,
      { name: 'notes/run.sh', data: 'echo hi\n', mode: 0o755 },
      { name: 'latest', type: '2', linkName: 'notes/first.txt' },
      { name: 'notes/up', type: '2', linkName: '../latest' },
    ];
    const bytes = tarArchive(members);
    await restoreWorkspaceSnapshot(chunksOf(bytes), target, {
      digest: createHash('sha256').update(bytes).digest('hex'),
    });
    expect(await folderTree(target)).toEqual({
      latest: '-> notes/first.txt',
      'notes/': '',
      'notes/first.txt': 'restored before the hostile entry',
      'notes/run.sh': 'echo hi\n',
      'notes/up': '-> ../latest',
    });
    expect((await lstat(join(target, 'notes/run.sh'))).mode & 0o777).toBe(0o755);
  });
});
