import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Starts an agent worker script as `node --import tsx <script> <config as JSON>` (a bare `tsx`
 * would leave a child behind after a kill -9 of its parent) and resolves once it printed its
 * "ready " line. With `detached`, the worker leads its own process group, so a test can end
 * whatever it started. Shared by the durable-turn tests, the failover rig and the scale benchmark.
 */
export async function startAgentWorkerProcess(
  script: string,
  config: object,
  options: { name?: string; detached?: boolean } = {},
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.detached === true ? { detached: true } : {}),
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready ')) resolve();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    });
    child.once('exit', (code) =>
      reject(
        new Error(`agent worker${options.name === undefined ? '' : ` ${options.name}`} exited (${code}): ${output}`),
      ),
    );
  });
  return child;
}
