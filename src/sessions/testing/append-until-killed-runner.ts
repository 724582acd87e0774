import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { SessionKey, SessionStore } from '../session-store.js';

const writerScript = fileURLToPath(new URL('./append-until-killed.ts', import.meta.url));

/**
 * Starts the append-until-killed writer, kills it with SIGKILL once it has acknowledged at least
 * `acknowledgements` versions, and resolves to every version it acknowledged (in order).
 */
export function appendUntilKilled(writerArguments: string[], acknowledgements: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writerScript, ...writerArguments], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
      else
        reject(
          new Error(
            `writer exited on its own (code ${String(code)}, signal ${String(signal)}) after ${versions.length} acknowledgements: ${stderr}`,
          ),
        );
    });
  });
}

/**
 * Checks a store after the writer was killed: every acknowledged batch is there, no batch is half
 * written (the writer may have committed one more batch between its last line and the kill), the
 * events are whole and in order, and the state matches the log.
 */
export async function expectAcknowledgedEventsKept(
  store: SessionStore,
  key: SessionKey,
  acknowledged: number[],
): Promise<void> {
  const session = await store.getSession(key);
  expect(session).toBeDefined();
  const last = acknowledged.at(-1) ?? 0;
  expect([last, last + 3]).toContain(session!.version);
  expect(session!.events.map((event) => event.version)).toEqual(
    Array.from({ length: session!.version }, (_, index) => index + 1),
  );
  for (const event of session!.events)
    expect(event.content).toEqual({ role: 'user', content: `event ${event.version}` });
  expect(session!.state).toEqual({ last: String(session!.version) });
}
