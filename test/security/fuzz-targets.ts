// What the fuzz test (fuzz.test.ts, a few hundred inputs per target) and the fuzz benchmark
// (bench/fuzz.bench.ts, a million in all) run: each target is an input generator and a check that
// throws FuzzFailure when a property breaks. The properties: a parser or reader throws nothing but
// its documented error class; a path it returns stays inside the folder it is relative to; one input
// never takes longer than `maxInputMs`.
import { lstat, mkdir, mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { SkillParseError } from '../../src/format/errors.js';
import { parseSkillMarkdown } from '../../src/format/parse-skill.js';
import { cleanArchivePath } from '../../src/repository/archive/archive-path.js';
import { UnsafeArchiveError } from '../../src/repository/archive/errors.js';
import { readArchive } from '../../src/repository/archive/read-archive.js';
import { tarArchive, zipArchive } from '../../src/repository/archive/testing/archive-writers.js';
import { normalizeBundledPath } from '../../src/repository/bundled-path.js';
import { SkillPathError } from '../../src/repository/errors.js';
import { restoreWorkspaceSnapshot } from '../../src/worker/custody/snapshot-tar-reader.js';

export class FuzzFailure extends Error {}

/** Longer than this for one input counts as a hang; ordinary inputs take well under a millisecond. */
export const maxInputMs = 2000;

export interface FuzzTarget<Input> {
  name: string;
  input: fc.Arbitrary<Input>;
  check(input: Input): Promise<void>;
}

const root = resolve('/fuzz-root/skill');

function requireInside(path: string, what: string): void {
  const resolved = resolve(root, path);
  if (!resolved.startsWith(root + sep))
    throw new FuzzFailure(`${what} ${JSON.stringify(path)} resolves outside the root: ${resolved}`);
}

function requireDocumented(error: unknown, documented: abstract new (...args: never[]) => Error, input: unknown): void {
  if (!(error instanceof documented)) {
    throw new FuzzFailure(
      `threw ${(error as Error)?.constructor?.name ?? typeof error} instead of ${documented.name} on ${JSON.stringify(input).slice(0, 300)}: ${String((error as Error)?.stack ?? error)}`,
    );
  }
}

async function timed(name: string, input: unknown, run: () => Promise<void> | void): Promise<void> {
  const started = performance.now();
  await run();
  const elapsed = performance.now() - started;
  if (elapsed > maxInputMs)
    throw new FuzzFailure(`${name} took ${elapsed.toFixed(0)} ms on ${JSON.stringify(input).slice(0, 300)}`);
}

/** Path-like text: the pieces that matter to containment, mixed with ordinary ones. */
const pathText = fc
  .array(
    fc.constantFrom(
      '..',
      '.',
      '/',
      '\\',
      'a',
      'b.md',
      'C:',
      ':',
      '\0',
      ' ',
      '%2e%2e',
      'é',
      '\n',
      '\u202E',
      '~',
      '//',
      './',
      '../',
      '...',
    ),
    { maxLength: 12 },
  )
  .map((pieces) => pieces.join(''));
const anyText = fc.oneof(pathText, fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }));

const frontmatterLine = fc.oneof(
  fc.constantFrom(
    'name: pdf-tools',
    'description: Does things.',
    'description: "quoted: colon"',
    'description: >',
    '  folded line',
    'metadata:',
    '  author: x',
    'allowed-tools: [Bash, Read]',
    'license: MIT',
    '- item',
    'key: [unclosed',
    'a: &anchor b',
    'c: *anchor',
    '? complex',
    '!!binary x',
    '---',
    '...',
    '\t',
    '',
  ),
  fc.string({ maxLength: 30 }),
);
const skillMarkdown = fc.oneof(
  fc
    .tuple(fc.array(frontmatterLine, { maxLength: 10 }), fc.string({ maxLength: 60 }), fc.boolean())
    .map(([lines, body, closed]) => `---\n${lines.join('\n')}\n${closed ? '---\n' : ''}${body}`),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
);

const skillParser: FuzzTarget<string | Buffer> = {
  name: 'SKILL.md parser',
  input: skillMarkdown,
  async check(input) {
    await timed(this.name, input, () => {
      try {
        parseSkillMarkdown(input, { file: 'SKILL.md', folderName: 'fuzz' });
      } catch (error) {
        requireDocumented(error, SkillParseError, input);
      }
    });
  },
};

const bundledPath: FuzzTarget<string> = {
  name: 'bundled path normalisation',
  input: anyText,
  async check(input) {
    await timed(this.name, input, () => {
      try {
        requireInside(normalizeBundledPath('fuzz', input), 'normalizeBundledPath gave');
      } catch (error) {
        if (error instanceof FuzzFailure) throw error;
        requireDocumented(error, SkillPathError, input);
      }
    });
  },
};

const archivePath: FuzzTarget<string> = {
  name: 'archive path normalisation',
  input: anyText,
  async check(input) {
    await timed(this.name, input, () => {
      try {
        const path = cleanArchivePath(input);
        if (path !== undefined) requireInside(path, 'cleanArchivePath gave');
      } catch (error) {
        if (error instanceof FuzzFailure) throw error;
        requireDocumented(error, UnsafeArchiveError, input);
      }
    });
  },
};

interface ArchiveInput {
  members: { name: string; data: string; directory: boolean }[];
  /** Byte positions (as fractions of the length) and values written over the built archive. */
  flips: { at: number; byte: number }[];
  truncateTo: number | undefined;
}

const archiveInput: fc.Arbitrary<ArchiveInput> = fc.record({
  members: fc.array(fc.record({ name: anyText, data: fc.string({ maxLength: 50 }), directory: fc.boolean() }), {
    minLength: 1,
    maxLength: 4,
  }),
  flips: fc.array(
    fc.record({
      at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
      byte: fc.integer({ min: 0, max: 255 }),
    }),
    { maxLength: 6 },
  ),
  truncateTo: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
});

function mutate(bytes: Buffer, input: ArchiveInput): Buffer {
  const copy = Buffer.from(bytes);
  for (const flip of input.flips) copy[Math.floor(flip.at * copy.length)] = flip.byte;
  return input.truncateTo === undefined ? copy : copy.subarray(0, Math.floor(input.truncateTo * copy.length));
}

function archiveReader(format: 'tar' | 'tar.gz' | 'zip'): FuzzTarget<ArchiveInput> {
  return {
    name: `${format} reader`,
    input: archiveInput,
    async check(input) {
      let bytes: Buffer;
      try {
        if (format === 'zip') {
          bytes = zipArchive(
            input.members.map((member) => ({
              name: member.directory ? `${member.name}/` : member.name,
              data: member.directory ? '' : member.data,
            })),
          );
        } else {
          const tar = tarArchive(
            input.members.map((member) => ({
              name: member.name,
              type: member.directory ? '5' : '0',
              data: member.directory ? '' : member.data,
            })),
          );
          bytes = format === 'tar' ? tar : gzipSync(tar);
        }
      } catch {
        return; // The test writer cannot write this input (a name over the tar field); nothing to read.
      }
      const hostile = mutate(bytes, input);
      await timed(this.name, input, async () => {
        try {
          const entries = await readArchive(hostile, format, {
            maxTotalBytes: 1024 * 1024,
            maxEntryBytes: 1024 * 1024,
            maxEntries: 100,
          });
          for (const entry of entries) requireInside(entry.path, `${format} entry`);
        } catch (error) {
          if (error instanceof FuzzFailure) throw error;
          requireDocumented(error, UnsafeArchiveError, input);
        }
      });
    },
  };
}

interface SnapshotInput {
  members: { name: string; type: '0' | '5' | '2' | '1' | '6'; data: string; linkName: string }[];
  flips: ArchiveInput['flips'];
  truncateTo: number | undefined;
}

const snapshotInput: fc.Arbitrary<SnapshotInput> = fc.record({
  members: fc.array(
    fc.record({
      name: anyText,
      type: fc.constantFrom('0', '5', '2', '1', '6'),
      data: fc.string({ maxLength: 50 }),
      linkName: anyText,
    }),
    { minLength: 1, maxLength: 5 },
  ),
  flips: archiveInput.map((input) => input.flips),
  truncateTo: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
});

async function* once(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes;
}

/** Every entry below `folder`, links not followed. */
async function listTree(folder: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    found.push(path);
    if (entry.isDirectory()) found.push(...(await listTree(path)));
  }
  return found;
}

/**
 * The streamed workspace snapshot restore (src/worker/custody/): it writes to disk, so the check is
 * on disk too. A restore either succeeds with every entry other than a link inside the folder, or fails with
 * UnsafeArchiveError and leaves the folder empty; nothing appears beside the folder either way.
 */
const snapshotRestore: FuzzTarget<SnapshotInput> = {
  name: 'workspace snapshot restore',
  input: snapshotInput,
  async check(input) {
    let bytes: Buffer;
    try {
      bytes = tarArchive(
        input.members.map((member) => ({
          name: member.name,
          type: member.type,
          data: member.type === '0' ? member.data : '',
          linkName: member.linkName,
        })),
      );
    } catch {
      return; // The test writer cannot write this input (a name over the tar field); nothing to read.
    }
    const hostile = mutate(bytes, { members: [], flips: input.flips, truncateTo: input.truncateTo });
    const box = await mkdtemp(join(tmpdir(), 'skillbox-fuzz-snapshot-'));
    try {
      const target = join(box, 'target');
      await mkdir(target);
      await timed(this.name, input, async () => {
        try {
          await restoreWorkspaceSnapshot(once(hostile), target, {
            limits: { maxEntries: 100, maxEntryBytes: 1024 * 1024, maxTotalBytes: 1024 * 1024 },
          });
          const real = await realpath(target);
          for (const path of await listTree(target)) {
            // A link may point anywhere (workspace-snapshot-restore.test.ts says why); what it must
            // not do is carry an entry outside, and no entry can lie below one.
            if ((await lstat(path)).isSymbolicLink()) continue;
            const resolved = await realpath(path).catch(() => undefined);
            if (resolved !== undefined && resolved !== real && !resolved.startsWith(real + sep))
              throw new FuzzFailure(`restored ${path} resolves outside the folder: ${resolved}`);
          }
        } catch (error) {
          if (error instanceof FuzzFailure) throw error;
          requireDocumented(error, UnsafeArchiveError, input);
          const left = await readdir(target);
          if (left.length > 0) throw new FuzzFailure(`a refused restore left ${JSON.stringify(left)}`);
        }
      });
      const beside = await readdir(box);
      if (beside.length !== 1) throw new FuzzFailure(`the restore wrote beside its folder: ${JSON.stringify(beside)}`);
    } finally {
      await rm(box, { recursive: true, force: true });
    }
  },
};

/** Every target, with its share of a fuzzing run's inputs. */
export const fuzzTargets: { target: FuzzTarget<never>; share: number }[] = [
  { target: skillParser as FuzzTarget<never>, share: 0.27 },
  { target: bundledPath as FuzzTarget<never>, share: 0.15 },
  { target: archivePath as FuzzTarget<never>, share: 0.15 },
  { target: archiveReader('tar') as FuzzTarget<never>, share: 0.15 },
  { target: archiveReader('tar.gz') as FuzzTarget<never>, share: 0.1 },
  { target: archiveReader('zip') as FuzzTarget<never>, share: 0.15 },
  // It writes to disk, so fewer of a run's inputs: each costs a folder made and removed.
  { target: snapshotRestore as FuzzTarget<never>, share: 0.03 },
];
