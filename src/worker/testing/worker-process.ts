import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A `skillbox worker` process a test started, with the secret it was given. */
export interface WorkerProcess {
  url: string;
  workerId: string;
  secret: string;
  child: ChildProcess;
  /** What the worker wrote on stderr so far. */
  stderr(): string;
  /** SIGTERM and wait (a clean stop); `kill('SIGKILL')` on `child` for a crash. */
  stop(): Promise<void>;
}

/**
 * Starts `skillbox worker` as its own process (`node --import tsx`, so a kill -9 leaves no child
 * behind) with a fresh secret in a 0600 file, and waits for its "listening" line.
 */
export async function startWorkerProcess(
  extraArgs: string[] = [],
  secret = randomBytes(32).toString('hex'),
): Promise<WorkerProcess> {
  const folder = mkdtempSync(path.join(tmpdir(), 'skillbox-worker-secret-'));
  const secretFile = path.join(folder, 'secret');
  writeFileSync(secretFile, `${secret}\n`, { mode: 0o600 });
  const here = fileURLToPath(import.meta.url);
  const main = path.join(path.dirname(here), `worker-process-main${path.extname(here)}`);
  const child = spawn(
    process.execPath,
    [
      ...(main.endsWith('.ts') ? ['--import', 'tsx'] : []),
      main,
      'worker',
      '--listen',
      '127.0.0.1:0',
      '--secret-file',
      secretFile,
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString('utf8');
  });
  const line = await new Promise<string>((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\n');
      if (end === -1) return;
      child.stdout?.off('data', onData);
      resolve(text.slice(0, end));
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`skillbox worker exited (code ${code}) before it listened: ${errors}`)),
    );
  });
  rmSync(folder, { recursive: true, force: true });
  const match = /listening on (\S+) \(worker (\S+)\)/.exec(line);
  if (match === null) throw new Error(`unexpected first line from skillbox worker: ${line}`);
  return {
    url: match[1] as string,
    workerId: match[2] as string,
    secret,
    child,
    stderr: () => errors,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
