import { spawn } from 'node:child_process';
import type { SourceErrorFactory } from './skill-source-error.js';

export interface RunGitOptions {
  readonly cwd: string;
  readonly input?: Buffer;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly fail: SourceErrorFactory;
  /** Environment added to the hardened one. */
  readonly environment?: Readonly<Record<string, string>>;
  /** Transports git may use (`GIT_ALLOW_PROTOCOL`): never `ext::` or `file`, which run commands or read the disk. */
  readonly allowedProtocols: readonly string[];
}

/** Settings put on every git command, whatever the user's configuration says. */
const hardening = [
  // A redirect would let the server send the fetch (and any credentials a helper adds) to another host.
  '-c',
  'http.followRedirects=false',
  // A malicious server's objects are checked as they arrive: `..` or `.git` tree entries, bad modes.
  '-c',
  'fetch.fsckObjects=true',
  '-c',
  'transfer.fsckObjects=true',
  '-c',
  'core.symlinks=false',
  '-c',
  'protocol.version=2',
];

/** Why git failed, in words a user can act on, from its stderr. */
function describeGitFailure(stderr: string): { failure: 'not-found' | 'refused' | 'unavailable'; reason: string } {
  const text = stderr.trim().split('\n').slice(-4).join('; ');
  if (/fsck|hasDot|hasDotdot|hasDotgit|badTree|bad tree|fullPathname/i.test(stderr))
    return {
      failure: 'refused',
      reason: `the fetched objects fail git's safety checks (a path with ".." or .git?): ${text}`,
    };
  if (/redirect/i.test(stderr))
    return {
      failure: 'refused',
      reason: `the server redirected; git sources follow no redirect, so a server cannot send the fetch to another host (${text})`,
    };
  if (
    /early EOF|unexpected disconnect|hung up unexpectedly|premature end|RPC failed|invalid index-pack output/i.test(
      stderr,
    )
  )
    return { failure: 'unavailable', reason: `the transfer was cut short (truncated download): ${text}` };
  if (
    /not found|does not exist|couldn't find remote ref|not our ref|no such remote ref|Repository not found/i.test(
      stderr,
    )
  )
    return { failure: 'not-found', reason: text };
  return { failure: 'unavailable', reason: text === '' ? 'git failed without a message' : text };
}

/**
 * Runs one git command with a hardened configuration and environment (no prompts, no system
 * configuration, only the allowed transports) and returns its stdout. The timeout and the caller's
 * signal kill the process, so a server that stops answering cannot hold an install forever.
 */
export function runGit(args: readonly string[], options: RunGitOptions): Promise<Buffer> {
  options.signal?.throwIfAborted();
  const { fail } = options;
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...hardening, ...args], {
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so a stop reaches the transport helper (git-remote-http) git starts too.
      detached: true,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? options.cwd,
        ...(process.env.SSH_AUTH_SOCK === undefined ? {} : { SSH_AUTH_SOCK: process.env.SSH_AUTH_SOCK }),
        GIT_TERMINAL_PROMPT: '0',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_ALLOW_PROTOCOL: options.allowedProtocols.join(':'),
        GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
        LC_ALL: 'C',
        ...options.environment,
      },
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let ended: 'timeout' | 'aborted' | undefined;
    const stop = (why: 'timeout' | 'aborted'): void => {
      ended ??= why;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    const onAbort = (): void => stop('aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 256) stderr.push(chunk);
    });
    child.stdin.on('error', () => {});
    child.stdin.end(options.input);
    child.on('error', (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(fail('unavailable', `git could not be started: ${error.message}`, error));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (ended === 'aborted') return reject(options.signal?.reason);
      if (ended === 'timeout')
        return reject(fail('unavailable', `git ${args[0]} timed out after ${options.timeoutMs} ms (timeoutMs)`));
      if (code === 0) return resolve(Buffer.concat(stdout));
      const { failure, reason } = describeGitFailure(Buffer.concat(stderr).toString('utf8'));
      reject(fail(failure, `git ${args[0]} failed: ${reason}`));
    });
  });
}
