// A runtime written only against the published package: every name it uses comes from `skillbox`
// (runtime-package.integration.test.ts installs the packed tarball into a scratch project and runs
// the conformance suite against this file there). It runs commands as plain host processes, each
// in its own process group, so a kill reaches everything a command started. It isolates nothing.
import { type ChildProcess, spawn } from 'node:child_process';
import { realpathSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { isAbsolute, relative } from 'node:path';
import {
  HostWorkspaceFiles,
  type RuntimeCommand,
  RuntimeCommandError,
  type RuntimeProcess,
  type RuntimeProcessCommand,
  type RuntimeProcessExit,
  type RuntimeProcessOutput,
  type RuntimeResult,
  type WorkspaceFiles,
  type WorkspaceRuntime,
} from 'skillbox';

/** How one spawned command ended. */
interface Ending {
  exitCode: number;
  signal?: string;
}

/** The folder as it is now, refused by field when missing: the one check the suite leaves to a runtime. */
function existingFolder(field: string, path: string): string {
  try {
    const real = realpathSync(path);
    if (statSync(real).isDirectory()) return real;
  } catch {}
  throw new RuntimeCommandError(field, `"${path}" is not an existing folder`);
}

function runningFolder(command: { workspaceRoot: string; cwd: string }): string {
  const root = existingFolder('workspaceRoot', command.workspaceRoot);
  const cwd = existingFolder('cwd', command.cwd);
  const inside = relative(root, cwd);
  if (inside.startsWith('..') || isAbsolute(inside))
    throw new RuntimeCommandError('cwd', `"${command.cwd}" leads out of the workspace`);
  return cwd;
}

/** Spawns the command in its own process group; a program that cannot start ends as a shell would report it. */
function launch(
  command: RuntimeProcessCommand,
  onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void,
): { child: ChildProcess; ended: Promise<Ending> } {
  const cwd = runningFolder(command);
  const [file, ...args] = command.argv ?? ['bash', '--noprofile', '--norc', '-c', command.command as string];
  const child = spawn(file as string, args, { cwd, env: command.env, detached: true, stdio: 'pipe' });
  child.stdout?.on('data', (chunk: Buffer) => onOutput('stdout', chunk));
  child.stderr?.on('data', (chunk: Buffer) => onOutput('stderr', chunk));
  child.stdin?.on('error', () => {});
  const ended = new Promise<Ending>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      onOutput('stderr', Buffer.from(`${file}: ${error.code === 'ENOENT' ? 'command not found' : error.message}\n`));
      resolve({ exitCode: error.code === 'ENOENT' ? 127 : error.code === 'EACCES' ? 126 : -1 });
    });
    child.once('exit', (code, signal) => {
      // Whatever the command left running in its group ends with it.
      killGroup(child);
      const ending: Ending =
        signal === null ? { exitCode: code ?? -1 } : { exitCode: 128 + (constants.signals[signal] ?? 0), signal };
      // Output still in the pipes is read before the ending is told.
      if (child.stdout?.readableEnded !== false && child.stderr?.readableEnded !== false) resolve(ending);
      else child.once('close', () => resolve(ending));
    });
  });
  return { child, ended };
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {}
}

/** The first `limit` bytes, cut back to a whole UTF-8 character. */
function headOf(bytes: Buffer, limit: number): Buffer {
  let end = Math.min(limit, bytes.length);
  if (end < bytes.length) {
    let lead = end;
    while (lead > 0 && lead > end - 4 && ((bytes[lead - 1] as number) & 0xc0) === 0x80) lead -= 1;
    const first = bytes[lead - 1];
    if (lead > 0 && first !== undefined && first >= 0xc0) {
      const length = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : 2;
      if (lead - 1 + length > end) end = lead - 1;
    }
  }
  return bytes.subarray(0, end);
}

/** Output of a background process not read yet: the newest `limit` bytes, the older ones counted. */
class UnreadOutput {
  private chunks: Buffer[] = [];
  private size = 0;
  dropped = 0;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size <= this.limit) return;
    const all = Buffer.concat(this.chunks);
    this.dropped += all.length - this.limit;
    this.chunks = [all.subarray(all.length - this.limit)];
    this.size = this.limit;
  }

  take(): { text: string; dropped: number } {
    const taken = { text: Buffer.concat(this.chunks).toString('utf8'), dropped: this.dropped };
    this.chunks = [];
    this.size = 0;
    this.dropped = 0;
    return taken;
  }

  get empty(): boolean {
    return this.size === 0 && this.dropped === 0;
  }
}

export class HostProcessRuntime implements WorkspaceRuntime {
  readonly kind = 'scratch-host-process';
  readonly isolated = false;
  private readonly processes = new Map<string, Set<{ kill(): Promise<RuntimeProcessExit> }>>();
  private started = 0;

  guestPath(hostPath: string): string {
    return hostPath;
  }

  files(workspaceRoot: string): WorkspaceFiles {
    return new HostWorkspaceFiles(workspaceRoot);
  }

  async run(command: RuntimeCommand): Promise<RuntimeResult> {
    const began = performance.now();
    const output = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    const { child, ended } = launch(command, (stream, chunk) => output[stream].push(chunk));
    const warnings: string[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      warnings.push(`timed out after ${command.timeoutMs} ms: the process tree was killed`);
      killGroup(child);
    }, command.timeoutMs);
    const onAbort = () => {
      warnings.push('aborted: the process tree was killed');
      killGroup(child);
    };
    if (command.abortSignal?.aborted) onAbort();
    command.abortSignal?.addEventListener('abort', onAbort, { once: true });
    if (command.stdin !== undefined) child.stdin?.end(command.stdin);
    else child.stdin?.end();
    const ending = await ended.finally(() => {
      clearTimeout(timer);
      command.abortSignal?.removeEventListener('abort', onAbort);
    });
    const capped = (stream: 'stdout' | 'stderr') => {
      const all = Buffer.concat(output[stream]);
      const kept = headOf(all, command.maxOutputBytes);
      if (kept.length < all.length) warnings.push(`${stream} truncated: dropped ${all.length - kept.length} bytes`);
      return { text: kept.toString('utf8'), dropped: all.length - kept.length };
    };
    const stdout = capped('stdout');
    const stderr = capped('stderr');
    return {
      stdout: stdout.text,
      stderr: stderr.text,
      exitCode: ending.exitCode,
      ...(ending.signal === undefined ? {} : { signal: ending.signal }),
      timedOut,
      durationMs: performance.now() - began,
      stdoutTruncated: stdout.dropped > 0,
      stderrTruncated: stderr.dropped > 0,
      stdoutDroppedBytes: stdout.dropped,
      stderrDroppedBytes: stderr.dropped,
      warnings,
    };
  }

  async start(command: RuntimeProcessCommand): Promise<RuntimeProcess> {
    const began = performance.now();
    const unread = {
      stdout: new UnreadOutput(command.maxOutputBytes),
      stderr: new UnreadOutput(command.maxOutputBytes),
    };
    let wake = (): void => undefined;
    const { child, ended } = launch(command, (stream, chunk) => {
      unread[stream].add(chunk);
      wake();
    });
    let killed = false;
    let timedOut = false;
    let stdinClosed = false;
    let finished: RuntimeProcessExit | undefined;
    const warnings: string[] = [];
    const lifetime = setTimeout(() => {
      timedOut = true;
      warnings.push(`reached its lifetime of ${command.timeoutMs} ms: the process tree was killed`);
      killGroup(child);
    }, command.timeoutMs);
    const exited = ended.then((ending): RuntimeProcessExit => {
      clearTimeout(lifetime);
      finished = { ...ending, timedOut, killed, durationMs: performance.now() - began, warnings };
      wake();
      return finished;
    });
    const kill = async () => {
      if (finished === undefined) {
        killed = true;
        killGroup(child);
      }
      return exited;
    };
    const workspaceProcesses = this.processes.get(command.workspaceRoot) ?? new Set();
    this.processes.set(command.workspaceRoot, workspaceProcesses);
    const entry = { kill };
    workspaceProcesses.add(entry);
    void exited.then(() => workspaceProcesses.delete(entry));
    this.started += 1;
    return {
      id: `process-${this.started}`,
      exited,
      kill,
      async writeStdin(data) {
        if (stdinClosed || finished !== undefined)
          throw new RuntimeCommandError('stdin', 'stdin was closed or the process has ended');
        await new Promise<void>((resolve, reject) =>
          child.stdin?.write(data, (error) => (error ? reject(error) : resolve())),
        );
      },
      async closeStdin() {
        stdinClosed = true;
        child.stdin?.end();
      },
      async read(waitMs): Promise<RuntimeProcessOutput> {
        if (unread.stdout.empty && unread.stderr.empty && finished === undefined) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, waitMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = () => undefined;
        }
        const exit = finished;
        const stdout = unread.stdout.take();
        const stderr = unread.stderr.take();
        return {
          stdout: stdout.text,
          stderr: stderr.text,
          stdoutDroppedBytes: stdout.dropped,
          stderrDroppedBytes: stderr.dropped,
          ...(exit === undefined ? {} : { exit }),
        };
      },
    };
  }

  async stopProcesses(workspaceRoot: string): Promise<void> {
    await Promise.all([...(this.processes.get(workspaceRoot) ?? [])].map((entry) => entry.kill()));
  }
}
