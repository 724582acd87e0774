import { CappedOutput } from '../capped-output.js';
import { ContainerEngineError, type EngineClient } from './engine-client.js';
import { ExitStatusTrailer } from './exit-status-trailer.js';
import { MultiplexedStreamReader } from './multiplexed-stream.js';

/** One process to run in a container through the Engine API's exec calls. */
export interface EngineExecSpec {
  container: string;
  argv: string[];
  user: string;
  /** Stdout and stderr bytes kept each; the rest is read, counted and dropped. */
  maxOutputBytes: number;
  /**
   * The marker the program's wrapper prints before its exit status as the last bytes of stderr
   * (exit-status-trailer.ts): taken off the output and used when the session is gone before it
   * was inspected.
   */
  exitMarker?: string;
  /**
   * Stops waiting for the output: the connection is dropped and the exec reported with exit code
   * -1 and what it printed so far. For a daemon that does not end an exec whose processes were
   * killed (a container whose runtime stopped answering).
   */
  abandon?: AbortSignal;
}

/** What an exec reported: its exit code and its capped output. */
export interface EngineExecResult {
  /** As the daemon saw it; -1 when the session was gone and no trailer said it. */
  exitCode: number;
  /**
   * The daemon had removed the session before it was inspected: the exit code is the wrapper's
   * own report (which the program could have forged) or -1.
   */
  sessionGone: boolean;
  /**
   * With an `exitMarker`: whether the wrapper's report ended stderr. Without one the wrapper never
   * ran to its end (the runtime failed to start it, or the container died under it).
   */
  reported?: boolean;
  stdout: { text: string; truncated: boolean; droppedBytes: number };
  stderr: { text: string; truncated: boolean; droppedBytes: number };
}

/**
 * Runs `argv` in the container and waits for its output stream to end. Stdin is not attached:
 * podman's compatible service feeds an attach request's JSON body into the process's stdin, so
 * input is placed as a file and redirected by the caller's wrapper instead. The exec's
 * environment is the container's (the caller's wrapper replaces it). Output is read whole but
 * kept only up to the cap, so a command printing without end costs `maxOutputBytes` of memory.
 */
export async function runEngineExec(client: EngineClient, spec: EngineExecSpec): Promise<EngineExecResult> {
  const created = await client.json<{ Id: string }>('POST', `/containers/${encodeURIComponent(spec.container)}/exec`, {
    Cmd: spec.argv,
    AttachStdin: false,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    User: spec.user,
  });
  const stdout = new CappedOutput(spec.maxOutputBytes);
  const stderr = new CappedOutput(spec.maxOutputBytes);
  const trailer =
    spec.exitMarker === undefined ? undefined : new ExitStatusTrailer(spec.exitMarker, (chunk) => stderr.push(chunk));
  const reader = new MultiplexedStreamReader((stream, chunk) => {
    if (stream === 'stdout') stdout.push(chunk);
    else if (trailer !== undefined) trailer.push(chunk);
    else stderr.push(chunk);
  });
  const response = await client.open('POST', `/exec/${created.Id}/start`, { Detach: false, Tty: false });
  if ((response.statusCode ?? 0) >= 400) {
    response.resume();
    throw new ContainerEngineError('starting an exec', response.statusCode, `in container ${spec.container}`);
  }
  const abandoned = await new Promise<boolean>((resolve, reject) => {
    const onAbandon = () => {
      response.destroy();
      resolve(true);
    };
    if (spec.abandon?.aborted === true) return onAbandon();
    spec.abandon?.addEventListener('abort', onAbandon, { once: true });
    response.on('data', (chunk: Buffer) => reader.push(chunk));
    response.once('end', () => {
      spec.abandon?.removeEventListener('abort', onAbandon);
      resolve(false);
    });
    response.once('error', (error) => {
      spec.abandon?.removeEventListener('abort', onAbandon);
      if (spec.abandon?.aborted === true) resolve(true);
      else reject(new ContainerEngineError('reading an exec', undefined, error.message));
    });
  });
  // The caller, which owns the signal, knows it was abandoned: the output so far, with no exit code.
  if (abandoned) return { exitCode: -1, sessionGone: false, stdout: stdout.finish(), stderr: stderr.finish() };
  const reported = trailer?.finish();
  const inspected = await inspectExec(client, created.Id);
  return {
    exitCode: inspected.exitCode ?? reported ?? -1,
    sessionGone: inspected.gone,
    ...(trailer === undefined ? {} : { reported: reported !== undefined }),
    stdout: stdout.finish(),
    stderr: stderr.finish(),
  };
}

/**
 * The exit code of an ended exec. podman's service set to clean up at once (exit_command_delay = 0)
 * may have removed the session already: it answers 404, or 500 "no such exec session" when the
 * removal happens while it looks.
 */
export async function inspectExec(
  client: EngineClient,
  id: string,
): Promise<{ exitCode: number | undefined; gone: boolean }> {
  const { status, body } = await client.call('GET', `/exec/${id}/json`, undefined, { allow: [404, 500] });
  const text = body.toString('utf8');
  if (status === 404 || (status === 500 && /no such exec session/.test(text)))
    return { exitCode: undefined, gone: true };
  if (status !== 200) throw new ContainerEngineError('inspecting an exec', status, text.slice(0, 500));
  return { exitCode: (JSON.parse(text) as { ExitCode: number | null }).ExitCode ?? undefined, gone: false };
}
