import { randomBytes } from 'node:crypto';
import { BackgroundOutput, checkStdinWritable } from '../background-output.js';
import type { RuntimeProcess, RuntimeProcessCommand } from '../runtime-process.js';
import { startAttachedExec } from './attached-exec.js';
import { cwdRefused, exitMarker, wrapperArgv } from './command-wrapper.js';
import type { EngineClient } from './engine-client.js';
import { inspectExec } from './engine-exec.js';
import { ExitStatusTrailer } from './exit-status-trailer.js';
import { MultiplexedStreamReader } from './multiplexed-stream.js';
import type { WorkspaceContainers } from './workspace-containers.js';

/** What starting a background process in a container needs from the runtime. */
export interface ContainerProcessContext {
  client: EngineClient;
  containers: WorkspaceContainers;
  user: string;
  /** The command's cwd as the container sees it. */
  guestCwd: string;
}

/**
 * Starts a background process (docs/long-running-commands.md) in a container of its own on the
 * workspace's volume (WorkspaceContainers.processContainer), under the same wrapper as a run,
 * with stdin attached through the exec's taken-over connection (attached-exec.ts). It ends, with
 * everything it started, when its program ends (the wrapper's kill), when it is killed or reaches
 * its lifetime (its container is removed: the daemon kills the container's PID 1, which nothing
 * inside can refuse), and its container is removed once it has ended.
 */
export async function startContainerProcess(
  context: ContainerProcessContext,
  command: RuntimeProcessCommand,
): Promise<RuntimeProcess> {
  const { client, containers, user } = context;
  const started = performance.now();
  const container = await containers.processContainer(command.workspaceRoot, command.network === true, command.image);
  const nonce = randomBytes(8).toString('hex');
  const output = new BackgroundOutput(command.maxOutputBytes);
  const trailer = new ExitStatusTrailer(exitMarker(nonce), (chunk) => output.stderr.push(chunk));
  let attached: Awaited<ReturnType<typeof startAttachedExec>>;
  try {
    attached = await startAttachedExec(client, {
      container,
      argv: wrapperArgv({
        nonce,
        cwd: context.guestCwd,
        input: '-',
        env: command.env,
        program: command.argv ?? ['bash', '-c', command.command ?? ''],
      }),
      user,
    });
  } catch (error) {
    await containers.removeContainer(container).catch(() => undefined);
    throw error;
  }
  const { socket } = attached;
  let timedOut = false;
  let killed = false;
  let stdinClosed = false;
  // Only stdout keeps the last bytes of stderr for the trailer: the cwd refusal is read from what was kept.
  let stderrSeen = '';
  const reader = new MultiplexedStreamReader((stream, chunk) => {
    if (stream === 'stdout') output.stdout.push(chunk);
    else {
      stderrSeen = (stderrSeen + chunk.toString('latin1')).slice(-200);
      trailer.push(chunk);
    }
    output.changed();
  });
  const removeContainer = () => containers.removeContainer(container).catch(() => undefined);
  const lifetime = setTimeout(() => {
    timedOut = true;
    void removeContainer();
  }, command.timeoutMs);

  let ending = false;
  const finish = async (): Promise<void> => {
    if (ending) return;
    ending = true;
    clearTimeout(lifetime);
    stdinClosed = true;
    const reported = trailer.finish();
    const inspected = killed || timedOut ? undefined : await inspectExec(client, attached.id).catch(() => undefined);
    await removeContainer();
    const warnings: string[] = [];
    // Neither the daemon nor the wrapper told the status: the container was removed under it (its
    // workspace was removed), which kills everything in it.
    const lost = !killed && !timedOut && inspected?.exitCode === undefined && reported === undefined;
    if (lost) {
      killed = true;
      warnings.push(
        'its status was lost with its container (removed with the workspace, or by the daemon): reported as killed',
      );
    }
    let exitCode = inspected?.exitCode ?? reported ?? -1;
    if (timedOut || killed) {
      exitCode = 137;
      warnings.push(
        timedOut
          ? `process reached its lifetime of ${command.timeoutMs} ms; the whole process tree was killed`
          : 'process killed; the whole process tree was killed',
      );
    } else if (cwdRefused(exitCode, stderrSeen, nonce))
      warnings.push(`"${command.cwd}" did not exist or led out of the workspace when the process started`);
    output.end({
      exitCode,
      ...(exitCode > 128 && exitCode < 160 ? { signal: exitCode === 137 ? 'SIGKILL' : `SIG${exitCode - 128}` } : {}),
      timedOut,
      killed,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      warnings,
    });
  };
  socket.on('data', (chunk: Buffer) => reader.push(chunk));
  socket.once('close', () => void finish());
  socket.on('error', () => socket.destroy());

  return {
    id: `${container}-${attached.id.slice(0, 12)}`,
    exited: output.exited,
    async writeStdin(data) {
      checkStdinWritable({ ended: ending, closed: stdinClosed, pendingBytes: socket.writableLength });
      socket.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    },
    async closeStdin() {
      if (stdinClosed) return;
      stdinClosed = true;
      // The writing side only: the output keeps coming until the process ends.
      socket.end();
    },
    read: (waitMs) => output.read(waitMs),
    async kill() {
      if (!ending) {
        killed = true;
        await removeContainer();
      }
      return output.exited;
    },
  };
}
