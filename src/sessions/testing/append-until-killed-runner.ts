import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const writerScript = fileURLToPath(new URL('./append-until-killed.ts', import.meta.url));

/**
 * Starts the append-until-killed writer, kills it with SIGKILL once it has acknowledged at least
 * `acknowledgements` versions, and resolves to every version it acknowledged (in order).
 */
export function appendUntilKilled(writerArguments: string[], acknowledgements: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writerScript, ...writerArguments], { stdio: ['ignore', 'pipe', 'pipe'] });
    const versions: number[] = [];
    let pending = '';
    let stderr = '';
    let killed = false;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) versions.push(Number(line));
      if (!killed && versions.length >= acknowledgements) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      // A line cut by the kill was never fully acknowledged; only whole lines count.
      if (signal === 'SIGKILL' && killed) resolve(versions);
      else reject(new Error(`writer exited on its own (code ${String(code)}, signal ${String(signal)}) after ${versions.length} acknowledgements: ${stderr}`));
    });
  });
}
