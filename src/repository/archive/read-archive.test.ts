import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../../config/config-error.js';
import type { ArchiveEntry, ArchiveFormat } from './archive-entry.js';
import { UnsafeArchiveError } from './errors.js';
import { readArchive } from './read-archive.js';
import {
  paxRecords,
  type TarMember,
  tarArchive,
  tarGzArchive,
  type ZipMember,
  zipArchive,
} from './testing/archive-writers.js';
import { rejectionOf } from './testing/rejection-of.js';

const refusal = (promise: Promise<unknown>): Promise<UnsafeArchiveError> => rejectionOf(promise, UnsafeArchiveError);

const summary = (entries: ArchiveEntry[]): string[] =>
  entries.map(
    (entry) =>
      `${entry.type === 'directory' ? 'd' : 'f'} ${entry.path} ${entry.mode.toString(8)}${entry.type === 'file' ? ` ${entry.data.toString('utf8')}` : ''}`,
  );

/** Each hostile name as a tar member and as a zip entry. */
function bothFormats(name: string): [ArchiveFormat, Buffer][] {
  return [
    [
      'tar',
      tarArchive([
        { name: 'ok.md', data: 'fine' },
        { name, data: 'x' },
      ]),
    ],
    [
      'zip',
      zipArchive([
        { name: 'ok.md', data: 'fine' },
        { name, data: 'x' },
      ]),
    ],
  ];
}

describe('readArchive: entry paths', () => {
  const hostile: [string, RegExp][] = [
    ['/etc/passwd', /absolute paths are not allowed/],
    ['../evil.md', /"\.\." is not allowed/],
    ['skills/../../evil.md', /"\.\." is not allowed/],
    ['skills/../inside.md', /"\.\." is not allowed/],
    ['skills\\..\\..\\evil.md', /backslash/],
    ['C:/Windows/evil.md', /drive letter/],
    ['C:evil.md', /drive letter/],
    ['notes.md:hidden', /colon/],
  ];
  for (const [name, reason] of hostile) {
    it(`refuses ${JSON.stringify(name)} in tar and zip, naming the entry`, async () => {
      for (const [format, bytes] of bothFormats(name)) {
        const error = await refusal(readArchive(bytes, format));
        expect(error.entry).toBe(name);
        expect(error.message).toMatch(reason);
        expect(error.message).toContain(JSON.stringify(name));
      }
    });
  }

  it('refuses a NUL inside a name (pax path in tar, raw name in zip)', async () => {
    const tar = tarArchive([
      { name: 'PaxHeaders/x', type: 'x', data: paxRecords({ path: 'a\0b.md' }) },
      { name: 'x', data: 'x' },
    ]);
    expect((await refusal(readArchive(tar, 'tar'))).message).toMatch(/NUL/);
    expect((await refusal(readArchive(zipArchive([{ name: 'a\0b.md', data: 'x' }]), 'zip'))).message).toMatch(/NUL/);
  });

  it('refuses a name that is not UTF-8', async () => {
    const zip = zipArchive([{ name: 'caf\u00e9.md', data: 'x' }]);
    // Turn the two UTF-8 bytes of "é" into one Latin-1 byte and a stray continuation byte.
    const at = zip.lastIndexOf(Buffer.from('caf\u00e9.md'));
    zip[at + 3] = 0xe9;
    zip[at + 4] = 0x2e;
    expect((await refusal(readArchive(zip, 'zip'))).message).toMatch(/not UTF-8/);
  });

  it('tidies "./" and doubled slashes, skips the archive\'s own "./" folder', async () => {
    const tar = tarArchive([
      { name: './', type: '5', mode: 0o755 },
      { name: './skill//SKILL.md', data: 'x', mode: 0o640 },
    ]);
    expect(summary(await readArchive(tar, 'tar'))).toEqual(['f skill/SKILL.md 640 x']);
  });
});

describe('readArchive: links, devices and duplicates', () => {
  const tarTypes: [string, string, RegExp][] = [
    ['symlink', '2', /symbolic links are not allowed/],
    ['hard link', '1', /hard links are not allowed/],
    ['character device', '3', /devices and FIFOs are not allowed/],
    ['block device', '4', /devices and FIFOs are not allowed/],
    ['FIFO', '6', /devices and FIFOs are not allowed/],
    ['GNU sparse file', 'S', /tar entry type "S" is not supported/],
  ];
  for (const [what, type, reason] of tarTypes) {
    it(`refuses a tar ${what}`, async () => {
      const error = await refusal(
        readArchive(
          tarArchive([
            { name: 'skill/SKILL.md', data: 'x' },
            { name: 'skill/link', type, linkName: '/etc/passwd' },
          ]),
          'tar',
        ),
      );
      expect(error.entry).toBe('skill/link');
      expect(error.message).toMatch(reason);
    });
  }

  it('refuses a tar file with an empty name, rather than reading it under a made-up one', async () => {
    const error = await refusal(
      readArchive(
        tarArchive([
          { name: 'skill/SKILL.md', data: 'x' },
          { name: '', data: 'y' },
        ]),
        'tar',
      ),
    );
    expect(error.entry).toBe('(empty name)');
    expect(error.message).toContain('no name');
  });

  it('refuses a zip symlink, FIFO or socket by its Unix mode', async () => {
    for (const [unixMode, reason] of [
      [0o120777, /symbolic links/],
      [0o010644, /devices, FIFOs and sockets/],
      [0o140755, /devices, FIFOs and sockets/],
    ] as const) {
      const error = await refusal(
        readArchive(zipArchive([{ name: 'skill/link', data: '/etc/passwd', unixMode, method: 0 }]), 'zip'),
      );
      expect(error.message).toMatch(reason);
    }
  });

  const duplicates: [string, TarMember[], ZipMember[]][] = [
    [
      'the same file twice',
      [
        { name: 'a.md', data: '1' },
        { name: 'a.md', data: '2' },
      ],
      [
        { name: 'a.md', data: '1' },
        { name: 'a.md', data: '2' },
      ],
    ],
    [
      'one path spelled two ways',
      [
        { name: 'a.md', data: '1' },
        { name: './a.md', data: '2' },
      ],
      [
        { name: 'a.md', data: '1' },
        { name: './a.md', data: '2' },
      ],
    ],
    [
      'a file used as a folder',
      [
        { name: 'a', data: '1' },
        { name: 'a/b.md', data: '2' },
      ],
      [
        { name: 'a', data: '1' },
        { name: 'a/b.md', data: '2' },
      ],
    ],
    [
      'a folder replaced by a file',
      [
        { name: 'a/b.md', data: '1' },
        { name: 'a', data: '2' },
      ],
      [
        { name: 'a/', data: '' },
        { name: 'a', data: '2' },
      ],
    ],
  ];
  for (const [what, tarMembers, zipMembers] of duplicates) {
    it(`refuses ${what}`, async () => {
      expect((await refusal(readArchive(tarArchive(tarMembers), 'tar'))).message).toMatch(
        /already has the path|is a file in this archive/,
      );
      expect((await refusal(readArchive(zipArchive(zipMembers), 'zip'))).message).toMatch(
        /already has the path|is a file in this archive/,
      );
    });
  }

  it('accepts a folder listed twice', async () => {
    const tar = tarArchive([
      { name: 'a/', type: '5', mode: 0o755 },
      { name: 'a/', type: '5', mode: 0o755 },
      { name: 'a/b.md', data: 'b' },
    ]);
    expect(summary(await readArchive(tar, 'tar'))).toEqual(['d a 755', 'd a 755', 'f a/b.md 644 b']);
  });
});

describe('readArchive: sizes, counts and bombs', () => {
  it('refuses a zip entry whose ratio marks a bomb before inflating it', async () => {
    const zeros = Buffer.alloc(2 * 1024 * 1024);
    const error = await refusal(readArchive(zipArchive([{ name: 'zeros.bin', data: zeros }]), 'zip'));
    expect(error.entry).toBe('zeros.bin');
    expect(error.message).toMatch(/ratio over 200:1/);
    // The same file passes when the caller allows that ratio.
    const entries = await readArchive(zipArchive([{ name: 'zeros.bin', data: zeros }]), 'zip', {
      maxCompressionRatio: 5000,
    });
    expect(entries[0]?.data.length).toBe(zeros.length);
  });

  it('refuses an entry that inflates past its declared size, or short of it', async () => {
    const text = 'abc'.repeat(1000);
    const liar = await refusal(readArchive(zipArchive([{ name: 'small.txt', data: text, declaredSize: 10 }]), 'zip'));
    expect(liar.message).toMatch(/inflates to more than its declared 10 bytes/);
    const short = await refusal(readArchive(zipArchive([{ name: 'big.txt', data: text, declaredSize: 5000 }]), 'zip'));
    expect(short.message).toMatch(/inflates to 3000 bytes, not the declared 5000/);
  });

  it('refuses entries whose data overlaps (the non-recursive zip bomb)', async () => {
    // Entry "a" claims bytes that run over entry "b"'s local record.
    const bRecord = 30 + 'b'.length + 4;
    const zip = zipArchive([
      { name: 'a', data: 'aaaa', method: 0, declaredSize: 4 + bRecord, declaredCompressedSize: 4 + bRecord },
      { name: 'b', data: 'bbbb', method: 0 },
    ]);
    expect((await refusal(readArchive(zip, 'zip'))).message).toMatch(/overlaps entry "a"/);
  });

  it('refuses a file over maxEntryBytes and an archive over maxTotalBytes, naming the entry', async () => {
    const big = 'x'.repeat(200);
    for (const [format, bytes] of [
      ['tar', tarArchive([{ name: 'big.txt', data: big }])],
      ['zip', zipArchive([{ name: 'big.txt', data: big }])],
    ] as const) {
      const error = await refusal(readArchive(bytes, format, { maxEntryBytes: 100 }));
      expect(error.message).toBe(
        'archive entry "big.txt" refused: 200 bytes is over the 100-byte limit for one file (maxEntryBytes)',
      );
    }
    const three = [1, 2, 3].map((index) => ({ name: `f${index}.txt`, data: big }));
    for (const [format, bytes] of [
      ['tar', tarArchive(three)],
      ['zip', zipArchive(three)],
    ] as const) {
      const error = await refusal(readArchive(bytes, format, { maxTotalBytes: 500 }));
      expect(error.entry).toBe('f3.txt');
      expect(error.message).toMatch(/more than the 500-byte limit for the whole archive \(maxTotalBytes\)/);
    }
  });

  it('refuses more entries than maxEntries', async () => {
    const four = [1, 2, 3, 4].map((index) => ({ name: `f${index}.txt`, data: 'x' }));
    expect((await refusal(readArchive(tarArchive(four), 'tar', { maxEntries: 3 }))).message).toMatch(
      /more than 3 entries/,
    );
    expect((await refusal(readArchive(zipArchive(four), 'zip', { maxEntries: 3 }))).message).toMatch(
      /holds 4 entries, more than 3/,
    );
  });

  it('stops a gzip stream that expands past what the limits allow', async () => {
    const bomb = tarGzArchive([{ name: 'zeros.bin', data: Buffer.alloc(4 * 1024 * 1024) }]);
    expect(bomb.length).toBeLessThan(10_000);
    const error = await refusal(readArchive(bomb, 'tar.gz', { maxTotalBytes: 1024, maxEntries: 2 }));
    expect(error.message).toMatch(/gzip stream expands past \d+ bytes.*gzip bomb/);
  });

  it('refuses a tar entry that claims more bytes than the tar holds, and a tar without its end', async () => {
    const truncated = tarArchive([{ name: 'a.txt', data: 'abc', declaredSize: 4096 }], { endBlocks: 0 });
    expect((await refusal(readArchive(truncated, 'tar'))).message).toMatch(/claims 4096 bytes but the tar ends first/);
    expect(
      (await refusal(readArchive(tarArchive([{ name: 'a.txt', data: 'abc' }], { endBlocks: 0 }), 'tar'))).message,
    ).toMatch(/without its end-of-archive block/);
  });
});

describe('readArchive: corrupt and unsupported input', () => {
  it('refuses a tar header with a bad checksum, a zip with a wrong CRC, garbage and truncated gzip', async () => {
    expect(
      (await refusal(readArchive(tarArchive([{ name: 'a.txt', data: 'x', badChecksum: true }]), 'tar'))).message,
    ).toMatch(/fails its checksum/);
    expect(
      (await refusal(readArchive(zipArchive([{ name: 'a.txt', data: 'x', declaredCrc: 1234 }]), 'zip'))).message,
    ).toMatch(/CRC-32 does not match/);
    expect(
      (await refusal(readArchive(Buffer.from('not an archive at all, just some text that is long enough'), 'zip')))
        .message,
    ).toMatch(/no end-of-central-directory record/);
    const gz = tarGzArchive([{ name: 'a.txt', data: 'x'.repeat(5000) }]);
    expect((await refusal(readArchive(gz.subarray(0, gz.length - 12), 'tar.gz'))).message).toMatch(
      /gzip stream is corrupt/,
    );
  });

  it('refuses zip entries whose local name differs, that are encrypted, or use another method', async () => {
    expect(
      (await refusal(readArchive(zipArchive([{ name: 'good.md', localName: '../bad.md', data: 'x' }]), 'zip'))).message,
    ).toMatch(/local header names a different path/);
    expect(
      (await refusal(readArchive(zipArchive([{ name: 'secret.md', data: 'x', flags: 0x0801 }]), 'zip'))).message,
    ).toMatch(/encrypted/);
    expect((await refusal(readArchive(zipArchive([{ name: 'b.md', data: 'x', method: 12 }]), 'zip'))).message).toMatch(
      /compression method 12/,
    );
  });

  it('checks its limits', async () => {
    await expect(readArchive(tarArchive([]), 'tar', { maxEntries: 0 })).rejects.toThrow(SkillboxConfigError);
    await expect(readArchive(tarArchive([]), 'tar', { maxTotalBytes: 1.5 })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      component: 'readArchive',
      option: 'maxTotalBytes',
      message: 'readArchive: option "maxTotalBytes" must be a positive integer; got 1.5',
    });
  });
});

describe('readArchive: archives from real tools and long names', () => {
  let dir: string;
  const longFolder = `${'deep-folder-name/'.repeat(8)}skill`;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbox-archive-'));
    await mkdir(join(dir, 'src', longFolder, 'scripts'), { recursive: true });
    await writeFile(join(dir, 'src', longFolder, 'SKILL.md'), '---\nname: deep\ndescription: Deep.\n---\nBody\n');
    await writeFile(join(dir, 'src', longFolder, 'scripts', 'run.sh'), '#!/bin/sh\necho hi\n');
    await chmod(join(dir, 'src', longFolder, 'scripts', 'run.sh'), 0o755);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const expectTree = (entries: ArchiveEntry[]): void => {
    const files = new Map(entries.filter((entry) => entry.type === 'file').map((entry) => [entry.path, entry]));
    expect([...files.keys()].sort()).toEqual([`${longFolder}/SKILL.md`, `${longFolder}/scripts/run.sh`]);
    expect(files.get(`${longFolder}/scripts/run.sh`)?.mode).toBe(0o755);
    expect(files.get(`${longFolder}/SKILL.md`)?.data.toString()).toContain('name: deep');
  };

  it('reads GNU tar (long names), pax tar and gzip from the system tar', async () => {
    for (const [format, flags] of [
      ['tar', ['--format=gnu', '-cf']],
      ['tar', ['--format=pax', '-cf']],
      ['tar.gz', ['--format=gnu', '-czf']],
    ] as const) {
      const archive = join(dir, `out.${format}`);
      execFileSync('tar', [...flags, archive, '-C', join(dir, 'src'), 'deep-folder-name']);
      expectTree(await readArchive(await readFile(archive), format));
      await rm(archive);
    }
  });

  it('reads a ZIP64 zip from Info-ZIP (zip -fz)', async () => {
    execFileSync('zip', ['-qr', '-fz', join(dir, 'zip64.zip'), 'deep-folder-name'], { cwd: join(dir, 'src') });
    const bytes = await readFile(join(dir, 'zip64.zip'));
    // The archive really is ZIP64: its end record points to a ZIP64 end record through a locator.
    expect(bytes.readUInt32LE(bytes.length - 22 - 20)).toBe(0x07064b50);
    expectTree(await readArchive(bytes, 'zip'));
  });

  it("reads zips from Info-ZIP and from Python's zipfile", async () => {
    execFileSync('zip', ['-qr', join(dir, 'info.zip'), 'deep-folder-name'], { cwd: join(dir, 'src') });
    expectTree(await readArchive(await readFile(join(dir, 'info.zip')), 'zip'));
    execFileSync('python3', ['-m', 'zipfile', '-c', join(dir, 'python.zip'), 'deep-folder-name'], {
      cwd: join(dir, 'src'),
    });
    const entries = await readArchive(await readFile(join(dir, 'python.zip')), 'zip');
    expect(
      entries
        .filter((entry) => entry.type === 'file')
        .map((entry) => entry.path)
        .sort(),
    ).toEqual([`${longFolder}/SKILL.md`, `${longFolder}/scripts/run.sh`]);
  });

  it('honours the ustar prefix and pax path and size records', async () => {
    const tar = tarArchive([
      { name: 'SKILL.md', prefix: 'from/prefix', data: 'p' },
      { name: 'PaxHeaders/x', type: 'x', data: paxRecords({ path: 'from/pax/name.md', size: '3' }) },
      { name: 'ignored-short-name', data: 'pax', declaredSize: 0 },
    ]);
    expect(summary(await readArchive(tar, 'tar'))).toEqual([
      'f from/prefix/SKILL.md 644 p',
      'f from/pax/name.md 644 pax',
    ]);
  });

  it('reads stored and deflated zip entries, a comment, and folders', async () => {
    const zip = zipArchive(
      [
        { name: 'skill/', unixMode: 0o040755 },
        { name: 'skill/SKILL.md', data: 'body', method: 0 },
        { name: 'skill/run.py', data: 'print(1)\n'.repeat(50), unixMode: 0o100750 },
      ],
      { comment: 'made by a test' },
    );
    const entries = await readArchive(zip, 'zip');
    expect(entries.map((entry) => `${entry.path} ${entry.mode.toString(8)}`)).toEqual([
      'skill 755',
      'skill/SKILL.md 644',
      'skill/run.py 750',
    ]);
    expect(entries[2]?.data.toString()).toBe('print(1)\n'.repeat(50));
    // Sanity check on the test writer: the deflated entry really is compressed.
    expect(deflateRawSync(Buffer.from('print(1)\n'.repeat(50))).length).toBeLessThan(100);
    expect(gzipSync(Buffer.alloc(0)).length).toBeGreaterThan(0);
  });
});

describe('readArchive: ZIP64', () => {
  const members: ZipMember[] = [
    { name: 'skill/SKILL.md', data: 'body', zip64: true },
    { name: 'skill/notes.md', data: 'notes '.repeat(100), method: 0, zip64: true },
  ];

  it('reads sizes and offsets from ZIP64 extra fields and the ZIP64 end record', async () => {
    const entries = await readArchive(zipArchive(members, { zip64End: {} }), 'zip');
    expect(entries.map((entry) => `${entry.path} ${entry.data.toString()}`)).toEqual([
      'skill/SKILL.md body',
      `skill/notes.md ${'notes '.repeat(100)}`,
    ]);
  });

  it('holds ZIP64 entries to the same checks: names, sizes, counts, ratio', async () => {
    expect(
      (
        await refusal(
          readArchive(zipArchive([{ name: '../evil.md', data: 'x', zip64: true }], { zip64End: {} }), 'zip'),
        )
      ).message,
    ).toMatch(/"\.\." is not allowed/);
    expect(
      (await refusal(readArchive(zipArchive(members, { zip64End: {} }), 'zip', { maxEntryBytes: 100 }))).message,
    ).toMatch(/600 bytes is over the 100-byte limit/);
    const bomb = await refusal(
      readArchive(
        zipArchive([{ name: 'zeros.bin', data: Buffer.alloc(2 * 1024 * 1024), zip64: true }], { zip64End: {} }),
        'zip',
      ),
    );
    expect(bomb.message).toMatch(/ratio over 200:1/);
    const counted = await refusal(readArchive(zipArchive(members, { zip64End: { declaredCount: 2 ** 40 } }), 'zip'));
    expect(counted.message).toMatch(/holds 1099511627776 entries, more than 20000 \(maxEntries\)/);
  });

  it('refuses ZIP64 markers without their data, and values out of range', async () => {
    expect(
      (await refusal(readArchive(zipArchive([{ name: 'a.md', data: 'x', zip64: 'no-extra' }]), 'zip'))).message,
    ).toMatch(/gives ZIP64 sizes but has no ZIP64 extra field/);
    const noLocator = zipArchive([{ name: 'a.md', data: 'x' }]);
    noLocator.writeUInt16LE(0xffff, noLocator.length - 22 + 10);
    expect((await refusal(readArchive(noLocator, 'zip'))).message).toMatch(
      /asks for ZIP64 values but there is no ZIP64 end record locator/,
    );
    const huge = zipArchive(members, { zip64End: {} });
    // The ZIP64 end record's central directory offset (56 + 20 + 22 bytes from the end, field at 48).
    huge.writeBigUInt64LE(2n ** 60n, huge.length - 22 - 20 - 56 + 48);
    expect((await refusal(readArchive(huge, 'zip'))).message).toMatch(
      /ZIP64 central directory offset \d+ is out of range/,
    );
  });
});
