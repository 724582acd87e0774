import { randomBytes } from 'node:crypto';
import { validateOptions } from '../../config/validate-options.js';
import { RuntimeCommandError } from '../errors.js';
import type { RuntimeCommand, RuntimeResult, WorkspaceRuntime } from '../runtime-types.js';
import { containerRuntimeOptionsSchema } from './container-runtime-options-schema.js';
import { ContainerWorkspaceFiles } from './container-workspace-files.js';
import { ContainerEngineError, type EngineAddress, EngineClient, parseEngineHost } from './engine-client.js';
import { runEngineExec } from './engine-exec.js';
import { buildTar } from './tar-archive.js';
import { guestStaging, guestWorkspace, WorkspaceContainers } from './workspace-containers.js';

/** Options of `createContainerRuntime`. */
export interface ContainerRuntimeOptions {
  /** The image commands run in (it needs a POSIX shell, coreutils, GNU `env` and python3, docs/runtimes.md). */
  image: string;
  /** The Engine API's unix socket, such as `/var/run/docker.sock` or `/run/podman/podman.sock`. */
  socketPath?: string;
  /** `unix:///path` or `tcp://host:port` (as DOCKER_HOST); default: `socketPath`, else DOCKER_HOST, else `/var/run/docker.sock`. */
  host?: string;
  /** The daemon's OCI runtime to use, such as `runsc` for gVisor; default: the daemon's own. */
  ociRuntime?: string;
  /** `uid:gid` (numbers) that commands and file operations run as; default `65534:65534`, never 0. */
  user?: string;
  /** Memory of each workspace container in bytes (swap included); default 512 MiB, null for none. */
  memoryBytes?: number | null;
  /** Processes of each workspace container at most; default 256, null for none. */
  pids?: number | null;
  /** CPUs of each workspace container; default 1, null for none. */
  cpus?: number | null;
  /** Size of the container's /tmp (memory-backed); default 64 MiB. */
  tmpBytes?: number;
  /** Network mode of the container used for commands that ask for network; default `bridge`. */
  network?: string;
}

/** A container runtime; `close()` drops its connections to the daemon (the workspaces' containers stay). */
export interface ContainerRuntime extends WorkspaceRuntime {
  close(): void;
}

/**
 * The script every command runs under (argv: nonce, cwd, stdin file, then the environment as
 * NAME=VALUE and the program's argv). It refuses a cwd that is missing or leads out of the
 * workspace before anything starts, gives the program exactly the asked-for environment (`env -i`:
 * the exec itself inherits the image's), and, when the program ends, kills every process the
 * user has in the container (kill -1 spares the caller and PID 1), so background jobs end with
 * the command and none can outlive it by leaving the process group. Its exit status ends stderr
 * as well (exit-status-trailer.ts), for a daemon that removed the session before it was inspected.
 */
const commandWrapper = `nonce=$1; cwd=$2; input=$3; shift 3
if ! cd -P -- "$cwd" 2>/dev/null; then echo "skillbox-cwd-refused-$nonce" >&2; exit 125; fi
case "$(pwd -P)/" in ${guestWorkspace}/*) ;; *) echo "skillbox-cwd-refused-$nonce" >&2; exit 125;; esac
exec 0<"$input" || exit 126
[ "$input" = /dev/null ] || rm -f -- "$input"
/usr/bin/env -i -- "$@"; code=$?
kill -KILL -1 2>/dev/null
printf 'skillbox-exit-%s:%d' "$nonce" "$code" >&2
exit $code`;

const defaults = { memoryBytes: 512 * 1024 * 1024, pids: 256, cpus: 1, tmpBytes: 64 * 1024 * 1024 };

/**
 * A `WorkspaceRuntime` whose commands run in Docker or Podman containers through the Docker
 * Engine API (docs/runtimes.md, "The container runtime"): one container per workspace, made on
 * first use and kept warm until the workspace is removed, an exec per command, the workspace on a
 * volume reached only through the API, so the daemon may be on another machine.
 */
export function createContainerRuntime(options: ContainerRuntimeOptions): ContainerRuntime {
  validateOptions('createContainerRuntime', containerRuntimeOptionsSchema, options);
  const address: EngineAddress =
    options.socketPath !== undefined
      ? { socketPath: options.socketPath }
      : parseEngineHost(options.host ?? process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock');
  const client = new EngineClient(address);
  const user = options.user ?? '65534:65534';
  const limit = (value: number | null | undefined, fallback: number) =>
    value === null ? undefined : (value ?? fallback);
  const containers = new WorkspaceContainers(client, {
    image: options.image,
    user,
    ...(options.ociRuntime === undefined ? {} : { ociRuntime: options.ociRuntime }),
    ...optional('memoryBytes', limit(options.memoryBytes, defaults.memoryBytes)),
    ...optional('pids', limit(options.pids, defaults.pids)),
    ...optional('cpus', limit(options.cpus, defaults.cpus)),
    tmpBytes: options.tmpBytes ?? defaults.tmpBytes,
    networkMode: options.network ?? 'bridge',
  });
  const [uid, gid] = user.split(':').map(Number) as [number, number];

  /**
   * Kills every process of the user in the container: after a timeout, an abort, or a wrapper that
   * was itself killed (its own kill did not run). kill(-1) signals them all in one pass, so when it
   * returns nothing is left; a command that kills every new process of its user can kill this one
   * first, though, and then the container is restarted, which nothing inside can outrun.
   */
  const killAll = async (container: string): Promise<void> => {
    const killed = await runEngineExec(client, {
      container,
      // Told by its output, not its exit code: the daemon may have removed the session before it is inspected.
      argv: ['/bin/sh', '-c', 'kill -KILL -1 2>/dev/null; echo killed-all'],
      user,
      maxOutputBytes: 1024,
    }).catch(() => undefined);
    if (killed?.stdout.text !== 'killed-all\n') await containers.restart(container);
  };

  /** The kernel's count of OOM kills in each container's memory cgroup, as last read. */
  const oomKills = new Map<string, number>();
  /**
   * Whether the container's cgroup counted an OOM kill since the last look (cgroup v1's
   * memory.oom_control, v2's memory.events, both readable inside): how a 137 from the memory cap is
   * told apart from any other SIGKILL. A count from before this runtime object started (an agent
   * restarted beside a container that had met its cap) is taken as new once.
   */
  const oomKillsGrew = async (container: string): Promise<boolean> => {
    const read = await runEngineExec(client, {
      container,
      argv: ['/bin/sh', '-c', 'cat /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events 2>/dev/null'],
      user,
      maxOutputBytes: 4096,
    }).catch(() => undefined);
    const counts = [...(read?.stdout.text ?? '').matchAll(/^oom_kill (\d+)$/gm)].map((match) => Number(match[1]));
    if (counts.length === 0) return false;
    const now = Math.max(...counts);
    const before = oomKills.get(container) ?? 0;
    oomKills.set(container, now);
    return now > before;
  };

  const run = async (command: RuntimeCommand): Promise<RuntimeResult> => {
    if ((command.readOnlyPaths ?? []).length > 0)
      throw new RuntimeCommandError('readOnlyPaths', 'the container runtime cannot show host paths to its commands');
    const started = performance.now();
    const container = await containers.container(command.workspaceRoot, command.network === true);
    const nonce = randomBytes(8).toString('hex');
    let input = '/dev/null';
    if (command.stdin !== undefined) {
      // Stdin travels as a file (see engine-exec.ts); the wrapper opens it and removes it first thing.
      const data = typeof command.stdin === 'string' ? Buffer.from(command.stdin, 'utf8') : command.stdin;
      await client.call(
        'PUT',
        `/containers/${container}/archive?path=${encodeURIComponent(guestStaging)}`,
        buildTar([{ kind: 'file', path: `stdin-${nonce}`, mode: 0o400, data }], uid, gid),
        { contentType: 'application/x-tar' },
      );
      input = `${guestStaging}/stdin-${nonce}`;
    }
    const program = command.argv ?? ['bash', '-c', command.command ?? ''];
    const environment = Object.entries(command.env).map(([name, value]) => `${name}=${value}`);
    const cwd = guestPath(command.cwd, command.workspaceRoot);
    let timedOut = false;
    let aborted = false;
    const stop = (why: 'timeout' | 'abort') => {
      if (why === 'timeout') timedOut = true;
      else aborted = true;
      void killAll(container).catch(() => undefined);
    };
    const timer = setTimeout(() => stop('timeout'), command.timeoutMs);
    const onAbort = () => stop('abort');
    command.abortSignal?.addEventListener('abort', onAbort, { once: true });
    if (command.abortSignal?.aborted === true) onAbort();
    const warnings: string[] = [];
    let exec: Awaited<ReturnType<typeof runEngineExec>>;
    try {
      exec = await runEngineExec(client, {
        container,
        // The wrapper starts with no environment either: the exec's (the image's and daemon's) would show in its /proc/PID/environ.
        argv: [
          '/usr/bin/env',
          '-i',
          '/bin/sh',
          '-c',
          commandWrapper,
          'skillbox-run',
          nonce,
          cwd,
          input,
          ...environment,
          ...program,
        ],
        user,
        maxOutputBytes: command.maxOutputBytes,
        exitMarker: `skillbox-exit-${nonce}:`,
      });
    } catch (error) {
      return engineLost(error, performance.now() - started);
    } finally {
      clearTimeout(timer);
      command.abortSignal?.removeEventListener('abort', onAbort);
    }
    if (exec.exitCode === 125 && exec.stderr.text.includes(`skillbox-cwd-refused-${nonce}`))
      throw new RuntimeCommandError('cwd', `"${command.cwd}" does not exist or leads out of the workspace`);
    const memoryHit = exec.exitCode === 137 && !timedOut && !aborted && (await oomKillsGrew(container));
    // The wrapper itself was killed (a command can signal it): its kill -1 did not run, so it is done here. A
    // session gone before its inspect leaves only the wrapper's report, which the command could forge: kill too.
    if ((exec.exitCode > 128 || exec.sessionGone) && !timedOut && !aborted)
      await killAll(container).catch(() => undefined);
    let exitCode = exec.exitCode;
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
  };

  return {
    kind: 'container',
    isolated: true,
    guestPath,
    run,
    files: (workspaceRoot) => new ContainerWorkspaceFiles(client, containers, workspaceRoot, user),
    close: () => client.close(),
  };
}

/** Where the container's commands see a path of the workspace: below /skillbox/workspace. */
function guestPath(hostPath: string, workspaceRoot: string): string {
  if (hostPath === workspaceRoot) return guestWorkspace;
  if (!hostPath.startsWith(`${workspaceRoot}/`)) return hostPath;
  return `${guestWorkspace}${hostPath.slice(workspaceRoot.length)}`;
}

function optional<Key extends string>(key: Key, value: number | undefined): { [K in Key]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [K in Key]?: number };
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
