import { randomBytes } from 'node:crypto';
import { RuntimeCommandError } from '../errors.js';
import type { RuntimeCommand, RuntimeResult } from '../runtime-types.js';
import { cwdRefused, exitMarker, wrapperArgv } from './command-wrapper.js';
import { ContainerEngineError, type EngineClient } from './engine-client.js';
import { runEngineExec } from './engine-exec.js';
import { guestPath } from './guest-path.js';
import { buildTar } from './tar-archive.js';
import { guestStaging, type WorkspaceContainers } from './workspace-containers.js';

/** How long a run waits, after killing a command, for the engine to end its exec. */
const abandonAfterKillMs = 10_000;

/**
 * Runs one command in its workspace's container (`WorkspaceRuntime.run` of the container
 * runtime): the stdin file, the wrapped exec, the kill after a timeout, an abort or a killed
 * wrapper, and the result with its warnings.
 */
export class ContainerRunner {
  /** The kernel's count of OOM kills in each container's memory cgroup, as last read. */
  private readonly oomKills = new Map<string, number>();

  constructor(
    private readonly client: EngineClient,
    private readonly containers: WorkspaceContainers,
    private readonly user: string,
  ) {}

  private ids(): [number, number] {
    return this.user.split(':').map(Number) as [number, number];
  }

  async run(command: RuntimeCommand): Promise<RuntimeResult> {
    if ((command.readOnlyPaths ?? []).length > 0)
      throw new RuntimeCommandError('readOnlyPaths', 'the container runtime cannot show host paths to its commands');
    const started = performance.now();
    const container = await this.containers.container(command.workspaceRoot, command.network === true, command.image);
    const nonce = randomBytes(8).toString('hex');
    let input = '/dev/null';
    if (command.stdin !== undefined) {
      // Stdin travels as a file (see engine-exec.ts); the wrapper opens it and removes it first thing.
      const data = typeof command.stdin === 'string' ? Buffer.from(command.stdin, 'utf8') : command.stdin;
      await this.client.call(
        'PUT',
        `/containers/${container}/archive?path=${encodeURIComponent(guestStaging)}`,
        buildTar([{ kind: 'file', path: `stdin-${nonce}`, mode: 0o400, data }], ...this.ids()),
        { contentType: 'application/x-tar' },
      );
      input = `${guestStaging}/stdin-${nonce}`;
    }
    const cwd = guestPath(command.cwd, command.workspaceRoot);
    let timedOut = false;
    let aborted = false;
    // The kill is waited for before the run returns: a restart still under way would refuse the next exec.
    let killing: Promise<void> = Promise.resolve();
    // A daemon whose container stopped answering (gVisor starved by a low pids cap does this) never
    // ends the exec nor the restart: the run gives up on both a grace period after the kill.
    const abandon = new AbortController();
    let abandonTimer: NodeJS.Timeout | undefined;
    const abandoned = new Promise<void>((resolve) => abandon.signal.addEventListener('abort', () => resolve()));
    const stop = (why: 'timeout' | 'abort') => {
      if (timedOut || aborted) return;
      if (why === 'timeout') timedOut = true;
      else aborted = true;
      killing = this.killAll(container).catch(() => undefined);
      abandonTimer = setTimeout(() => abandon.abort(), abandonAfterKillMs);
    };
    const timer = setTimeout(() => stop('timeout'), command.timeoutMs);
    const onAbort = () => stop('abort');
    command.abortSignal?.addEventListener('abort', onAbort, { once: true });
    if (command.abortSignal?.aborted === true) onAbort();
    const warnings: string[] = [];
    let exec: Awaited<ReturnType<typeof runEngineExec>>;
    try {
      exec = await runEngineExec(this.client, {
        container,
        argv: wrapperArgv({
          nonce,
          cwd,
          input,
          env: command.env,
          program: command.argv ?? ['bash', '-c', command.command ?? ''],
        }),
        user: this.user,
        maxOutputBytes: command.maxOutputBytes,
        exitMarker: exitMarker(nonce),
        abandon: abandon.signal,
      });
    } catch (error) {
      return engineLost(error, performance.now() - started);
    } finally {
      clearTimeout(timer);
      command.abortSignal?.removeEventListener('abort', onAbort);
      await Promise.race([killing, abandoned]);
      clearTimeout(abandonTimer);
    }
    if (abandon.signal.aborted)
      warnings.push(
        `the engine had not ended the command ${abandonAfterKillMs / 1000} s after it was killed: the run stopped waiting for it (the container may need removing)`,
      );
    if (cwdRefused(exec.exitCode, exec.stderr.text, nonce))
      throw new RuntimeCommandError('cwd', `"${command.cwd}" does not exist or leads out of the workspace`);
    const memoryHit = exec.exitCode === 137 && !timedOut && !aborted && (await this.oomKillsGrew(container));
    // The wrapper itself was killed (a command can signal it): its kill -1 did not run, so it is done here. A
    // session gone before its inspect leaves only the wrapper's report, which the command could forge: kill too.
    // A wrapper that never reported its end did not run its kill either, and its container may have
    // died under it (gVisor's sandbox does when a fork bomb starves it): the kill restarts a dead one.
    if ((exec.exitCode > 128 || exec.sessionGone || exec.reported === false) && !timedOut && !aborted) {
      await this.killAll(container).catch(() => undefined);
      if (exec.reported === false)
        warnings.push(
          `the command's wrapper did not report its end (exit ${exec.exitCode}): every process of the container was killed, or the container restarted`,
        );
    }
    let exitCode = exec.exitCode;
    // A wrapper that never reported, whose session the engine removed before it could be inspected
    // (podman cleans up at once, .ci/podman-containers.conf), leaves no status at all. It was
    // killed, by the command or with its container, and every process after it by the kill above:
    // reported as killed, as the engine reports it whenever it still has the session. Which of the
    // two a run got depended on the engine's timing (a loaded host saw -1).
    // (A timed-out or aborted run is reported as killed just below in any case.)
    if (exec.reported === false && exec.sessionGone && exitCode === -1) exitCode = 137;
    if (timedOut || aborted) {
      exitCode = 137;
      warnings.push(
        timedOut
          ? `the command was killed after its timeout of ${command.timeoutMs} ms, with every process it started`
          : 'the command was aborted and killed, with every process it started',
      );
    }
    for (const [name, stream] of [
      ['stdout', exec.stdout],
      ['stderr', exec.stderr],
    ] as const)
      if (stream.truncated)
        warnings.push(`${name} was cut at ${command.maxOutputBytes} bytes; ${stream.droppedBytes} bytes were dropped`);
    if (memoryHit)
      warnings.push(
        'a process was killed for memory: the workspace container reached its memory cap (memoryBytes, swap included)',
      );
    return {
      ...(memoryHit ? { limitsHit: ['memory' as const] } : {}),
      stdout: exec.stdout.text,
      stderr: exec.stderr.text,
      exitCode,
      ...(exitCode > 128 && exitCode < 160 ? { signal: signalName(exitCode - 128) } : {}),
      timedOut,
      durationMs: performance.now() - started,
      stdoutTruncated: exec.stdout.truncated,
      stderrTruncated: exec.stderr.truncated,
      stdoutDroppedBytes: exec.stdout.droppedBytes,
      stderrDroppedBytes: exec.stderr.droppedBytes,
      warnings,
    };
  }

  /**
   * Kills every process of the user in the container: after a timeout, an abort, or a wrapper that
   * was itself killed (its own kill did not run). kill(-1) signals them all in one pass, so when it
   * returns nothing is left; a command that kills every new process of its user can kill this one
   * first, though, and then the container is restarted, which nothing inside can outrun.
   */
  private async killAll(container: string): Promise<void> {
    const killed = await runEngineExec(this.client, {
      container,
      // Told by its output, not its exit code: the daemon may have removed the session before it is inspected.
      argv: ['/bin/sh', '-c', 'kill -KILL -1 2>/dev/null; echo killed-all'],
      user: this.user,
      maxOutputBytes: 1024,
    }).catch(() => undefined);
    if (killed?.stdout.text !== 'killed-all\n') await this.containers.restart(container);
  }

  /**
   * Whether the container's cgroup counted an OOM kill since the last look (cgroup v1's
   * memory.oom_control, v2's memory.events, both readable inside): how a 137 from the memory cap is
   * told apart from any other SIGKILL. A count from before this runtime object started (an agent
   * restarted beside a container that had met its cap) is taken as new once.
   */
  private async oomKillsGrew(container: string): Promise<boolean> {
    const read = await runEngineExec(this.client, {
      container,
      argv: ['/bin/sh', '-c', 'cat /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events 2>/dev/null'],
      user: this.user,
      maxOutputBytes: 4096,
    }).catch(() => undefined);
    const counts = [...(read?.stdout.text ?? '').matchAll(/^oom_kill (\d+)$/gm)].map((match) => Number(match[1]));
    if (counts.length === 0) return false;
    const now = Math.max(...counts);
    const before = this.oomKills.get(container) ?? 0;
    this.oomKills.set(container, now);
    return now > before;
  }
}

/** A run whose exec broke after it was sent: it may have run, so it is reported, not thrown. */
function engineLost(error: unknown, durationMs: number): RuntimeResult {
  const why = error instanceof ContainerEngineError ? error.message : String(error);
  return {
    stdout: '',
    stderr: '',
    exitCode: -1,
    timedOut: false,
    durationMs,
    stdoutTruncated: false,
    stderrTruncated: false,
    warnings: [`the container engine failed during the run; it may have had effects: ${why}`],
  };
}

const signalNames: Record<number, string> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  6: 'SIGABRT',
  9: 'SIGKILL',
  13: 'SIGPIPE',
  15: 'SIGTERM',
};

function signalName(number: number): string {
  return signalNames[number] ?? `SIG${number}`;
}
