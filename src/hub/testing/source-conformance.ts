import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSkillboxError } from '../../errors.js';
import type { FetchedSkill, SkillSource } from '../skill-source.js';
import { conformanceSkillFiles } from './conformance-skill-tree.js';

/**
 * Content a hostile publisher could serve. Each source's harness publishes it in the source's own
 * format (an archive entry, a git tree entry, an index that lies) or says the format cannot carry it.
 */
export type HostileSourceContent =
  | 'traversal'
  | 'absolute-path'
  | 'symlink'
  | 'hardlink'
  | 'device'
  | 'zip-bomb'
  | 'oversize-file'
  | 'truncated-download'
  | 'hanging-server'
  | 'redirect-to-another-host';

/** Each hostile content with what the refusal must say, so a failure for another reason does not pass. */
export const hostileSourceContents: Readonly<Record<HostileSourceContent, RegExp>> = {
  traversal: /"\.\."|traversal|outside/,
  'absolute-path': /absolute/,
  symlink: /link/,
  hardlink: /link/,
  device: /device/,
  'zip-bomb': /bomb|limit|ratio/,
  'oversize-file': /limit/,
  'truncated-download': /truncated|unexpected end|corrupt|cut short/,
  'hanging-server': /no complete answer within \d+ ms|timed out after \d+ ms/,
  'redirect-to-another-host': /another host/,
};

/** One source under test, talking to a loopback server that speaks its format. */
export interface SourceConformanceHarness {
  /**
   * The source, configured for the loopback server with a `timeoutMs` of about 2 seconds and an
   * `archive.maxEntryBytes` of 1 MiB, so the hanging and oversize cases finish quickly.
   */
  readonly source: SkillSource;
  /** A reference to the conformance tree (conformance-skill-tree.ts) published the source's way. */
  readonly reference: string;
  /** A reference in the source's syntax to something the server does not have. */
  readonly missingReference: string;
  /** Whether the format carries executable bits (a well-known v0.1 index, file by file, does not). */
  readonly keepsExecutableBits: boolean;
  /**
   * Publishes the content and returns a reference to it, or undefined when the source's format
   * cannot express it (a git tree has no device entries); the case is then skipped.
   */
  hostile(content: HostileSourceContent): Promise<string | undefined>;
  close(): Promise<void>;
}

async function resolveAndFetch(
  source: SkillSource,
  reference: string,
  options: { skills?: readonly string[]; signal?: AbortSignal } = {},
): Promise<readonly FetchedSkill[]> {
  const resolved = await source.resolve(reference, options.signal === undefined ? {} : { signal: options.signal });
  return source.fetch(resolved, options);
}

function expectSameFiles(skill: FetchedSkill, name: 'alpha' | 'beta', keepsExecutableBits: boolean): void {
  const expected = conformanceSkillFiles(name);
  expect(skill.files.map((file) => file.path).sort()).toEqual(expected.map((file) => file.path).sort());
  for (const file of expected) {
    const actual = skill.files.find((candidate) => candidate.path === file.path);
    expect(Buffer.from(actual?.bytes ?? []).equals(Buffer.from(file.bytes)), `${name}/${file.path} bytes`).toBe(true);
    if (keepsExecutableBits) expect(actual?.executable, `${name}/${file.path} executable bit`).toBe(file.executable);
  }
}

/** The behaviour every SkillSource shares with well-formed content, as one vitest suite. */
export function describeSkillSourceConformance(name: string, open: () => Promise<SourceConformanceHarness>): void {
  describe(`${name} skill source conformance`, () => {
    let harness: SourceConformanceHarness;
    // Publishing fixtures (npm pack, git commits) can take seconds on a loaded machine.
    beforeAll(async () => {
      harness = await open();
    }, 60_000);
    afterAll(async () => {
      await harness?.close();
    });

    it('matches its own references', () => {
      expect(harness.source.matches(harness.reference)).toBe(true);
    });

    it('pins a reference to an immutable identity, the same one each time', async () => {
      const first = await harness.source.resolve(harness.reference);
      const second = await harness.source.resolve(harness.reference);
      expect(first.sourceType).toBe(harness.source.type);
      expect(first.source).toBe(harness.reference);
      expect(first.sourceUrl).not.toBe('');
      expect(first.pinned).toBeTruthy();
      expect(second.pinned).toBe(first.pinned);
    });

    it('fetches every skill with its exact bytes (binary files intact) and executable bits', async () => {
      const skills = await resolveAndFetch(harness.source, harness.reference);
      expect(skills.map((skill) => skill.name).sort()).toEqual(['alpha', 'beta']);
      expectSameFiles(
        skills.find((skill) => skill.name === 'alpha') as FetchedSkill,
        'alpha',
        harness.keepsExecutableBits,
      );
      expectSameFiles(
        skills.find((skill) => skill.name === 'beta') as FetchedSkill,
        'beta',
        harness.keepsExecutableBits,
      );
    });

    it('keeps only the skills named in the filter', async () => {
      const skills = await resolveAndFetch(harness.source, harness.reference, { skills: ['beta'] });
      expect(skills.map((skill) => skill.name)).toEqual(['beta']);
      expectSameFiles(skills[0] as FetchedSkill, 'beta', harness.keepsExecutableBits);
    });

    it('names the source and the skill when a filtered skill is not there', async () => {
      const error = await resolveAndFetch(harness.source, harness.reference, { skills: ['gamma'] }).catch(
        (caught: unknown) => caught,
      );
      expect(isSkillboxError(error, 'SKILL_SOURCE_FAILED')).toBe(true);
      expect((error as Error).message).toContain(harness.source.type);
      expect((error as Error).message).toContain('gamma');
    });

    it('names the source and the reference when the reference does not exist', async () => {
      const error = await resolveAndFetch(harness.source, harness.missingReference).catch((caught: unknown) => caught);
      expect(isSkillboxError(error, 'SKILL_SOURCE_FAILED')).toBe(true);
      expect((error as Error).message).toContain(harness.source.type);
      expect((error as Error).message).toContain(harness.missingReference);
    });

    it('stops at once when the call is cancelled before it starts', async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(harness.source.resolve(harness.reference, { signal: controller.signal })).rejects.toMatchObject({
        name: 'AbortError',
      });
    });

    it('stops a call that is waiting on a server when it is cancelled', async (context) => {
      const reference = await harness.hostile('hanging-server');
      if (reference === undefined) return context.skip();
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 200);
      await expect(resolveAndFetch(harness.source, reference, { signal: controller.signal })).rejects.toMatchObject({
        name: 'AbortError',
      });
      // Well before the harness timeout (2 s): the abort, not the timeout, ended the call.
      expect(Date.now() - started).toBeLessThan(1_800);
    });
  });
}

/** Hostile content, each refused with a clear SKILL_SOURCE_FAILED error; for test/security/. */
export function describeSkillSourceHostileConformance(
  name: string,
  open: () => Promise<SourceConformanceHarness>,
): void {
  describe(`${name} skill source refuses hostile content`, () => {
    let harness: SourceConformanceHarness;
    // Publishing fixtures (npm pack, git commits) can take seconds on a loaded machine.
    beforeAll(async () => {
      harness = await open();
    }, 60_000);
    afterAll(async () => {
      await harness?.close();
    });

    for (const [content, reason] of Object.entries(hostileSourceContents) as [HostileSourceContent, RegExp][]) {
      it(`refuses ${content.replaceAll('-', ' ')}`, { timeout: 15_000 }, async (context) => {
        const reference = await harness.hostile(content);
        if (reference === undefined) return context.skip();
        const error = await resolveAndFetch(harness.source, reference).catch((caught: unknown) => caught);
        expect(isSkillboxError(error, 'SKILL_SOURCE_FAILED'), String(error)).toBe(true);
        expect((error as Error).message).toContain(harness.source.type);
        expect((error as Error).message, String(error)).toMatch(reason);
      });
    }
  });
}
