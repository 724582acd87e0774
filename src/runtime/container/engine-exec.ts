import { CappedOutput } from '../capped-output.js';
import { ContainerEngineError, type EngineClient } from './engine-client.js';
import { MultiplexedStreamReader } from './multiplexed-stream.js';

/** One process to run in a container through the Engine API's exec calls. */
export interface EngineExecSpec {
  container: string;
  argv: string[];
  user: string;
  /** Stdout and stderr bytes kept each; the rest is read, counted and dropped. */
  maxOutputBytes: number;
}

/** What an exec reported: its exit code (as the daemon saw it) and its capped output. */
export interface EngineExecResult {
  exitCode: number;
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
  const reader = new MultiplexedStreamReader((stream, chunk) => (stream === 'stdout' ? stdout : stderr).push(chunk));
  const response = await client.open('POST', `/exec/${created.Id}/start`, { Detach: false, Tty: false });
  if ((response.statusCode ?? 0) >= 400) {
    response.resume();
    throw new ContainerEngineError('starting an exec', response.statusCode, `in container ${spec.container}`);
  }
  await new Promise<void>((resolve, reject) => {
    response.on('data', (chunk: Buffer) => reader.push(chunk));
    response.once('end', resolve);
    response.once('error', (error) => reject(new ContainerEngineError('reading an exec', undefined, error.message)));
  });
  const inspected = await client.json<{ ExitCode: number | null; Running: boolean }>('GET', `/exec/${created.Id}/json`);
  return { exitCode: inspected.ExitCode ?? -1, stdout: stdout.finish(), stderr: stderr.finish() };
}
