import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { conformanceCommand, type RuntimeConformanceSubject } from './runtime-conformance-subject.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The `files()` cases of the runtime conformance suite: placing trees (bytes, host files, links),
 * replacing a planted link, refusing a parent that leads out, capped reads, link resolution,
 * listing, copying, folders, removal and measuring. Commands plant the links, as a hostile command
 * would; the host side goes only through `files`.
 */
export function describeRuntimeFilesConformance(current: () => RuntimeConformanceSubject): void {
  const sh = (command: string) => current().runtime.run({ ...conformanceCommand(current()), command });

  it('writes files that the host sees in the workspace', async () => {
    const { files } = current();
    await files.put('input.txt', { kind: 'file', mode: 0o644, content: { data: Buffer.from('from host') } });
    const result = await sh('cat input.txt > copy.txt && python3 -c "print(open(\'copy.txt\').read())"');
    expect(result).toMatchObject({ stdout: 'from host\n', exitCode: 0 });
    expect((await files.read('copy.txt', 100)).data.toString()).toBe('from host');
  });

  it('places a tree (bytes, host files, links) that commands see, with digests while writing', async () => {
    const { files } = current();
    const source = mkdtempSync(join(tmpdir(), 'skillbox-conformance-source-'));
    try {
      writeFileSync(join(source, 'host.txt'), 'host bytes');
      const placed = await files.put(
        'tree/copy',
        {
          kind: 'directory',
          mode: 0o755,
          entries: [
            { kind: 'directory', path: 'sub', mode: 0o755 },
            { kind: 'file', path: 'sub/given.txt', mode: 0o644, content: { data: Buffer.from('given') } },
            {
              kind: 'file',
              path: 'run.sh',
              mode: 0o755,
              content: { hostFile: join(source, 'host.txt'), within: source },
            },
            { kind: 'link', path: 'alias', target: 'sub/given.txt' },
          ],
        },
        { digests: true },
      );
      expect(placed.digests).toEqual({ 'sub/given.txt': sha256('given'), 'run.sh': sha256('host bytes') });
      expect((await files.inspect('tree/copy'))?.inode).toBe(placed.inode);
      const result = await sh('cat tree/copy/alias tree/copy/run.sh; test -x tree/copy/run.sh && echo exec');
      expect(result.stdout).toBe('givenhost bytesexec\n');
    } finally {
      rmSync(source, { recursive: true, force: true });
    }
  });

  it('replaces what is at the destination (a planted link itself), and refuses a parent that leads out', async () => {
    const { files } = current();
    expect((await sh('mkdir -p plant && ln -s / plant/escape && ln -s /etc/hostname plant/link')).exitCode).toBe(0);
    await files.put('plant/link', { kind: 'file', mode: 0o644, content: { data: Buffer.from('replaced') } });
    expect((await files.inspect('plant/link'))?.kind).toBe('file');
    const name = `skillbox-conformance-${process.pid}`;
    await expect(
      files.put(`plant/escape/${name}`, { kind: 'file', mode: 0o644, content: { data: Buffer.from('x') } }),
    ).rejects.toMatchObject({ code: 'WORKSPACE_PATH_REFUSED' });
    await expect(files.makeFolder(`plant/escape/${name}`)).rejects.toMatchObject({
      code: 'WORKSPACE_PATH_REFUSED',
    });
    expect(existsSync(`/${name}`)).toBe(false);
  });

  it('reads only regular files inside the workspace, capped, and resolves links without leaving it', async () => {
    const { files } = current();
    expect(
      (await sh('ln -sf /etc/hostname leak && printf 0123456789 > ten.txt && ln -sf ten.txt inner')).exitCode,
    ).toBe(0);
    // Refused by whatever error the runtime's refusal gives (a host runtime's no-follow open: ELOOP).
    await expect(files.read('leak', 100)).rejects.toThrow();
    expect(await files.read('ten.txt', 4)).toEqual({ data: Buffer.from('0123'), sizeBytes: 10 });
    const [leak, inner, missing] = await files.resolve(['leak', 'inner', 'no-such-file']);
    expect(leak).toEqual({ inside: false });
    expect(inner).toMatchObject({ inside: true, path: 'ten.txt', entry: { kind: 'file', sizeBytes: 10 } });
    expect(missing).toBeUndefined();
    expect((await files.inspect('inner'))?.kind).toBe('link');
  });
  describeRuntimeTreeCases(current, sh);
}

/** The listing, copying, folder and removal cases of `describeRuntimeFilesConformance`. */
function describeRuntimeTreeCases(
  current: () => RuntimeConformanceSubject,
  sh: (command: string) => ReturnType<RuntimeConformanceSubject['runtime']['run']>,
): void {
  it('lists depth first, sorted, without following links, within the limits', async () => {
    const { files } = current();
    expect(
      (await sh('mkdir -p listing/b/deep && touch listing/a listing/b/c listing/b/deep/d && ln -s / listing/up'))
        .exitCode,
    ).toBe(0);
    const all = await files.list('listing', { maxDepth: Infinity, maxEntries: 100 });
    expect(all).toEqual({
      entries: [
        { path: 'a', kind: 'file' },
        { path: 'b', kind: 'directory' },
        { path: 'b/c', kind: 'file' },
        { path: 'b/deep', kind: 'directory' },
        { path: 'b/deep/d', kind: 'file' },
        { path: 'up', kind: 'link' },
      ],
      truncated: false,
    });
    expect((await files.list('listing', { maxDepth: 1, maxEntries: 100 })).entries.map((entry) => entry.path)).toEqual([
      'a',
      'b',
      'up',
    ]);
    expect(await files.list('listing', { maxDepth: Infinity, maxEntries: 2 })).toMatchObject({ truncated: true });
  });

  it('copies inside the workspace leaving out links that leave the copied folder', async () => {
    const { files } = current();
    expect(
      (await sh('mkdir -p from && echo one > from/one && ln -s one from/same && ln -s /etc/hostname from/out'))
        .exitCode,
    ).toBe(0);
    await files.copy('from', 'to');
    const result = await sh('cat to/one to/same; ls to');
    expect(result.stdout).toBe('one\none\none\nsame\n');
  });

  it('creates folders (exclusively when asked), repairs replaced ones, removes, and measures', async () => {
    const { files } = current();
    expect(await files.makeFolder('made/inner', { exclusive: true })).toBe(true);
    expect(await files.makeFolder('made/inner', { exclusive: true })).toBe(false);
    expect((await sh('rm -r made && ln -s / made')).exitCode).toBe(0);
    await files.ensureFolders(['made', 'made/inner']);
    expect((await files.inspect('made'))?.kind).toBe('directory');
    expect((await files.inspect('made/inner'))?.kind).toBe('directory');
    await files.remove('made');
    expect(await files.inspect('made')).toBeUndefined();
    await files.remove('made');
    const usage = await files.measure({ maxBytes: Infinity, maxFiles: Infinity });
    expect(usage.files).toBeGreaterThan(5);
    expect(usage.exceeded).toBeUndefined();
    expect((await files.measure({ maxBytes: Infinity, maxFiles: 2 })).exceeded).toBe('files');
  });

  it('removes an empty folder where it offers to, and nothing else: not a file, a link, or a folder with entries', async () => {
    const { files } = current();
    if (files.removeEmptyFolder === undefined) return;
    expect(
      (await sh('mkdir -p empty full/inner target && echo x > file && ln -s target linked && ln -s / rooted')).exitCode,
    ).toBe(0);
    expect(await files.removeEmptyFolder('empty')).toBe(true);
    expect(await files.inspect('empty')).toBeUndefined();
    expect(await files.removeEmptyFolder('full')).toBe(false);
    expect(await files.removeEmptyFolder('file')).toBe(false);
    expect(await files.removeEmptyFolder('linked')).toBe(false);
    expect(await files.removeEmptyFolder('rooted')).toBe(false);
    expect(await files.removeEmptyFolder('missing')).toBe(false);
    expect((await files.inspect('full/inner'))?.kind).toBe('directory');
    expect((await files.inspect('file'))?.kind).toBe('file');
    expect((await files.inspect('linked'))?.kind).toBe('link');
    expect((await files.inspect('target'))?.kind).toBe('directory');
  });
}
