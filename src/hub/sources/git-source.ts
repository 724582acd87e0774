import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { archiveLimits } from '../../repository/archive/archive-limits.js';
import { ArchivePathSet, cleanArchivePath } from '../../repository/archive/archive-path.js';
import { UnsafeArchiveError } from '../../repository/archive/errors.js';
import type { FetchedFile, FetchedSkill, ResolvedSource, SkillSource } from '../skill-source.js';
import { collectSkills } from './collect-skills.js';
import { type GitReference, parseGitReference, redactGitReference } from './git-reference.js';
import { runGit } from './run-git.js';
import { type SourceErrorFactory, sourceErrorFactory } from './skill-source-error.js';
import { type SourceFetchLimits, sourceFetchLimits } from './source-limits.js';

/** Options of `createGitSource`: allowed transports, the temporary folder and fetch limits. */
export interface GitSourceOptions {
  /**
   * Allow `http://` and `git://`, which neither encrypt nor authenticate the server (the commit id
   * still pins the content). Off by default; loopback test servers turn it on.
   */
  readonly allowInsecureTransports?: boolean;
  /** Where the temporary object stores go, the system temporary folder by default. */
  readonly temporaryDirectory?: string;
  readonly limits?: Partial<SourceFetchLimits>;
}

interface TreeEntry {
  mode: string;
  type: string;
  object: string;
  size: number;
  path: string;
}

/** `git ls-tree -r -z --long` output: `MODE TYPE OBJECT SIZE\tPATH\0`, the size `-` for non-blobs. */
function parseTree(output: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const record of output.toString('utf8').split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [mode, type, object, size] = record.slice(0, tab).trim().split(/\s+/) as [string, string, string, string];
    entries.push({ mode, type, object, size: size === '-' ? 0 : Number(size), path: record.slice(tab + 1) });
  }
  return entries;
}

/** Splits `git cat-file --batch` output (`OBJECT TYPE SIZE\n` + bytes + `\n` per object). */
function splitBatch(output: Buffer, count: number, fail: SourceErrorFactory): Buffer[] {
  const blobs: Buffer[] = [];
  let at = 0;
  for (let index = 0; index < count; index += 1) {
    const lineEnd = output.indexOf(0x0a, at);
    const header = output.subarray(at, lineEnd).toString('utf8').split(' ');
    const size = Number(header[2]);
    if (lineEnd === -1 || header[1] !== 'blob' || !Number.isSafeInteger(size))
      throw fail('unavailable', `git cat-file answered "${header.join(' ')}" where a blob was expected`);
    blobs.push(output.subarray(lineEnd + 1, lineEnd + 1 + size));
    at = lineEnd + 1 + size + 1;
  }
  return blobs;
}

/**
 * Skills from any git repository (`git+https://…`, `https://….git`, `ssh://`, `git@host:path`),
 * optionally `#ref` and `#ref:path`. The ref is resolved with `git ls-remote`; the fetch is a
 * shallow fetch of exactly the pinned commit into a temporary object store, and files are read from
 * the objects (nothing is checked out, so no link or hook in the repository can act on the disk).
 * Symbolic links are refused, submodules are left out, every path goes through the archive path
 * rules, and sizes are checked against the limits before a byte is read.
 */
export function createGitSource(options: GitSourceOptions = {}): SkillSource {
  const limits = sourceFetchLimits(options.limits);
  // `file` reads a repository on this machine (a bare mirror, a path the user typed): no network.
  const allowedProtocols = options.allowInsecureTransports
    ? ['https', 'ssh', 'file', 'http', 'git']
    : ['https', 'ssh', 'file'];

  function parse(reference: string, fail: SourceErrorFactory): GitReference {
    const parsed = parseGitReference(reference);
    if (parsed === undefined)
      throw fail('invalid-reference', 'not a git URL (git+https://…, https://….git, ssh://…, git+file://…)');
    const scheme = /^([a-z]+):\/\//.exec(parsed.url)?.[1] ?? 'ssh';
    if (!allowedProtocols.includes(scheme))
      throw fail(
        'refused',
        `${scheme}:// neither encrypts nor authenticates the server, so it is off by default; allow it with --allow-unencrypted-git (library: git.allowInsecureTransports)`,
      );
    return parsed;
  }

  async function withStore<T>(work: (store: string) => Promise<T>): Promise<T> {
    const store = await mkdtemp(join(options.temporaryDirectory ?? tmpdir(), 'skillbox-git-'));
    try {
      return await work(store);
    } finally {
      await rm(store, { recursive: true, force: true });
    }
  }

  async function resolveRef(
    location: GitReference,
    fail: SourceErrorFactory,
    signal: AbortSignal | undefined,
  ): Promise<{ commit: string; ref: string }> {
    const ref = location.ref ?? 'HEAD';
    if (/^[0-9a-f]{40}$/.test(ref)) return { commit: ref, ref };
    return withStore(async (store) => {
      const output = await runGit(['ls-remote', '--', location.url, ref, `${ref}^{}`], {
        cwd: store,
        timeoutMs: limits.timeoutMs,
        signal,
        fail,
        allowedProtocols,
      });
      const commit = commitOfRef(output, ref);
      if (commit === undefined || !/^[0-9a-f]{40}$/.test(commit))
        throw fail('not-found', `the repository has no ref "${ref}"`);
      return { commit, ref };
    });
  }

  async function readCommit(
    location: GitReference,
    commit: string,
    fail: SourceErrorFactory,
    signal: AbortSignal | undefined,
  ): Promise<FetchedFile[]> {
    const checked = archiveLimits(limits.archive);
    return withStore(async (store) => {
      const run = (args: string[], input?: Buffer) =>
        runGit(args, {
          cwd: store,
          timeoutMs: limits.timeoutMs,
          signal,
          fail,
          allowedProtocols,
          ...(input === undefined ? {} : { input }),
        });
      await run(['init', '--quiet', '--bare']);
      await run(['fetch', '--quiet', '--depth=1', '--no-tags', '--', location.url, commit]);
      const entries = parseTree(await run(['ls-tree', '-r', '-z', '--long', '--full-tree', commit]));
      const wanted = filesOfTree(entries, checked, fail);
      if (wanted.length === 0) return [];
      const output = await run(
        ['cat-file', '--batch'],
        Buffer.from(`${wanted.map((entry) => entry.object).join('\n')}\n`),
      );
      const blobs = splitBatch(output, wanted.length, fail);
      return wanted.map((entry, index) => ({
        path: entry.path,
        bytes: blobs[index] as Buffer,
        executable: entry.mode === '100755',
      }));
    });
  }

  return {
    type: 'git',
    matches(reference) {
      return parseGitReference(reference) !== undefined;
    },
    async resolve(reference, callOptions = {}): Promise<ResolvedSource> {
      const shown = redactGitReference(reference);
      const fail = sourceErrorFactory('git', shown);
      const parsed = parse(reference, fail);
      const location = callOptions.ref === undefined ? parsed : { ...parsed, ref: callOptions.ref };
      const { commit, ref } = await resolveRef(location, fail, callOptions.signal);
      return {
        sourceType: 'git',
        // The reference as given, so fetch can use any credentials in it; messages only ever show `shown`.
        source: reference,
        sourceUrl: redactGitReference(parsed.url),
        ...(location.ref === undefined ? {} : { ref }),
        pinned: commit,
      };
    },
    async fetch(resolved, callOptions = {}): Promise<readonly FetchedSkill[]> {
      const fail = sourceErrorFactory('git', redactGitReference(resolved.source));
      const location = parse(resolved.source, fail);
      if (resolved.pinned === undefined || !/^[0-9a-f]{40}$/.test(resolved.pinned))
        throw fail('invalid-reference', 'the resolved source has no pinned commit; call resolve first');
      const tree = await readCommit(location, resolved.pinned, fail, callOptions.signal);
      return collectSkills(tree, { subPath: location.path, skills: callOptions.skills, fail });
    },
  };
}

/**
 * The plain files of a commit's tree, checked before a byte is read: canonical paths only, no links
 * or other modes, submodules left out, and the archive limits on count and sizes.
 */
function filesOfTree(
  entries: readonly TreeEntry[],
  checked: ReturnType<typeof archiveLimits>,
  fail: SourceErrorFactory,
): TreeEntry[] {
  const paths = new ArchivePathSet();
  const wanted: TreeEntry[] = [];
  let total = 0;
  try {
    for (const entry of entries) {
      if (entry.type === 'commit') continue;
      const path = cleanArchivePath(entry.path);
      if (path === undefined || path !== entry.path)
        throw new UnsafeArchiveError('the path is not in canonical form', entry.path);
      if (entry.mode === '120000')
        throw new UnsafeArchiveError('symbolic links are not allowed (they could point out of the skill)', entry.path);
      if (entry.mode !== '100644' && entry.mode !== '100755')
        throw new UnsafeArchiveError(`git mode ${entry.mode} is not a plain file`, entry.path);
      paths.add(path, 'file', entry.path);
      if (wanted.length + 1 > checked.maxEntries)
        throw new UnsafeArchiveError(`the commit holds more than ${checked.maxEntries} files (maxEntries)`);
      if (entry.size > checked.maxEntryBytes)
        throw new UnsafeArchiveError(
          `${entry.size} bytes is over the ${checked.maxEntryBytes}-byte limit for one file (maxEntryBytes)`,
          entry.path,
        );
      total += entry.size;
      if (total > checked.maxTotalBytes)
        throw new UnsafeArchiveError(
          `the files add up to more than the ${checked.maxTotalBytes}-byte limit (maxTotalBytes)`,
          entry.path,
        );
      wanted.push(entry);
    }
  } catch (error) {
    if (error instanceof UnsafeArchiveError) throw fail('refused', error.message, error);
    throw error;
  }
  return wanted;
}

/** The commit `git ls-remote` names for `ref`: a branch, a tag (peeled first), or the ref itself. */
function commitOfRef(output: Buffer, ref: string): string | undefined {
  const refs = new Map<string, string>();
  for (const line of output.toString('utf8').split('\n')) {
    const [commit, name] = line.split('\t');
    if (commit !== undefined && name !== undefined) refs.set(name, commit);
  }
  return (
    refs.get(ref === 'HEAD' ? 'HEAD' : `refs/heads/${ref}`) ??
    refs.get(`refs/tags/${ref}^{}`) ??
    refs.get(`refs/tags/${ref}`) ??
    refs.get(ref)
  );
}
