import { join } from 'node:path';
import { expect, type TestContext, it as vitestIt } from 'vitest';
import type { RuntimeProcess, RuntimeProcessCommand, RuntimeProcessExit } from '../runtime-process.js';
import { commandError, conformanceCommand, type RuntimeConformanceSubject } from './runtime-conformance-subject.js';

/** Everything a process wrote until `done` held (or it ended), read the way a caller polls. */
export interface CollectedProcessOutput {
  stdout: string;
  stderr: string;
  stdoutDroppedBytes: number;
  stderrDroppedBytes: number;
  exit?: RuntimeProcessExit;
}

/** Polls `handle` until `done(collected)` or its exit, failing after `limitMs`. */
export async function readProcessUntil(
  handle: RuntimeProcess,
  done: (collected: CollectedProcessOutput) => boolean,
  limitMs = 10_000,
): Promise<CollectedProcessOutput> {
  const collected: CollectedProcessOutput = { stdout: '', stderr: '', stdoutDroppedBytes: 0, stderrDroppedBytes: 0 };
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const output = await handle.read(200);
    collected.stdout += output.stdout;
    collected.stderr += output.stderr;
    collected.stdoutDroppedBytes += output.stdoutDroppedBytes;
    collected.stderrDroppedBytes += output.stderrDroppedBytes;
    if (output.exit !== undefined) collected.exit = output.exit;
    if (done(collected) || collected.exit !== undefined) return collected;
  }
  throw new Error(`the process did not get there within ${limitMs} ms: ${JSON.stringify(collected)}`);
}

/** Starts `command` in the background in the subject's workspace root, with roomy limits. */
function startIn(
  subject: RuntimeConformanceSubject,
  command: string,
  extra: Partial<RuntimeProcessCommand> = {},
): Promise<RuntimeProcess> {
  const { runtime } = subject;
  if (runtime.start === undefined) throw new Error(`the ${runtime.kind} runtime has no start()`);
  return runtime.start({ ...conformanceCommand(subject, { timeoutMs: 20_000 }), command, ...extra });
}

/**
 * A process that starts a child rewriting `file` every 50 ms, says so, and waits. The file is
 * replaced, never truncated in place, so a kill between two writes cannot leave it empty;
 * "started" comes after the first write, so the file exists once it is read.
 */
const writeLoop = (file: string): string =>
  `(date +%s%N > ${file}; echo started; while true; do date +%s%N > ${file}.next && mv -f ${file}.next ${file}; sleep 0.05; done) & sleep 30`;

/** True when the loop writing `file` stopped: its content stays the same over half a second. */
async function stoppedWriting(subject: RuntimeConformanceSubject, file: string): Promise<boolean> {
  const cat = () => subject.runtime.run({ ...conformanceCommand(subject), command: `cat ${file}` });
  const first = (await cat()).stdout;
  await new Promise((resolve) => setTimeout(resolve, 500));
  return first !== '' && (await cat()).stdout === first;
}

/**
 * The background-process cases of the runtime conformance suite (runtime-conformance.ts calls
 * this inside its describe block): `start` and `stopProcesses` behave alike on every runtime that
 * has them. The workspace is reached only through the runtime, as in the rest of the suite.
 */
export function describeRuntimeProcessConformance(current: () => RuntimeConformanceSubject): void {
  // `start` and `stopProcesses` are optional: a runtime without them skips these cases (the tools
  // then offer no background processes) rather than failing them.
  const it = (title: string, test: () => Promise<void> | void) =>
    vitestIt(title, async (context: TestContext) => {
      if (current().runtime.start === undefined) context.skip();
      await test();
    });
  const start = (command: string, extra: Partial<RuntimeProcessCommand> = {}) => startIn(current(), command, extra);

  vitestIt('has start and stopProcesses together, or neither', () => {
    const { runtime } = current();
    expect(typeof runtime.start).toBe(typeof runtime.stopProcesses);
  });

  it('round-trips stdin and returns only the output that is new since the last read', async () => {
    const handle = await start('while read -r line; do echo "got:$line"; done; echo "stdin closed"');
    await handle.writeStdin('one\n');
    const first = await readProcessUntil(handle, (seen) => seen.stdout.includes('got:one'));
    expect(first.stdout).toBe('got:one\n');
    await handle.writeStdin(new Uint8Array(Buffer.from('two\n')));
    const second = await readProcessUntil(handle, (seen) => seen.stdout.includes('got:two'));
    expect(second.stdout).toBe('got:two\n');
    await handle.closeStdin();
    const last = await readProcessUntil(handle, () => false);
    expect(last.stdout).toBe('stdin closed\n');
    expect(last.exit).toMatchObject({ exitCode: 0, timedOut: false, killed: false });
    await expect(handle.writeStdin('late\n')).rejects.toMatchObject({ code: 'RUNTIME_COMMAND_INVALID' });
  });

  it('reports the exit code and keeps stderr apart', async () => {
    const handle = await start('echo out; echo err >&2; exit 3');
    const all = await readProcessUntil(handle, () => false);
    expect(all).toMatchObject({ stdout: 'out\n', stderr: 'err\n', exit: { exitCode: 3, killed: false } });
    expect((await handle.exited).exitCode).toBe(3);
    // Once the exit was read, later reads keep reporting it with no output.
    expect(await handle.read(0)).toMatchObject({ stdout: '', stderr: '', exit: { exitCode: 3 } });
  });

  it('waits up to the given time for output and returns at once when there is some', async () => {
    const handle = await start('read -r go; echo "$go"');
    const began = Date.now();
    const empty = await handle.read(300);
    expect(empty).toMatchObject({ stdout: '', stderr: '' });
    expect(empty.exit).toBeUndefined();
    expect(Date.now() - began).toBeGreaterThanOrEqual(250);
    await handle.writeStdin('now\n');
    expect((await readProcessUntil(handle, () => false)).stdout).toBe('now\n');
  });

  it('kills the process and everything it started', async () => {
    const handle = await start(writeLoop('process-kill-marker'));
    await readProcessUntil(handle, (seen) => seen.stdout.includes('started'));
    const exit = await handle.kill();
    expect(exit).toMatchObject({ killed: true, timedOut: false });
    expect(exit.exitCode).toBeGreaterThan(128);
    expect(await stoppedWriting(current(), 'process-kill-marker')).toBe(true);
  });

  it('kills the process tree when it reaches its lifetime', async () => {
    const handle = await start(writeLoop('process-lifetime-marker'), { timeoutMs: 5000 });
    await readProcessUntil(handle, (seen) => seen.stdout.includes('started'));
    const exit = await handle.exited;
    expect(exit).toMatchObject({ timedOut: true, exitCode: 137 });
    expect(exit.warnings.length).toBeGreaterThan(0);
    expect(await stoppedWriting(current(), 'process-lifetime-marker')).toBe(true);
  });

  it('keeps at most maxOutputBytes of unread output, the newest, and counts the rest', async () => {
    const handle = await start("head -c 100000 /dev/zero | tr '\\0' x; echo; echo END", { maxOutputBytes: 1000 });
    await handle.exited;
    const all = await readProcessUntil(handle, () => false);
    expect(all.stdout.length).toBeLessThanOrEqual(1000);
    expect(all.stdout.endsWith('x\nEND\n')).toBe(true);
    expect(all.stdout.length + all.stdoutDroppedBytes).toBe(100_005);
  });

  it('ends every process of the workspace when its processes are stopped', async () => {
    const { runtime, workspace } = current();
    const first = await start(writeLoop('process-stop-marker'));
    const second = await start('sleep 30');
    await readProcessUntil(first, (seen) => seen.stdout.includes('started'));
    await runtime.stopProcesses?.(workspace);
    const [firstExit, secondExit] = await Promise.all([first.exited, second.exited]);
    expect(firstExit.killed).toBe(true);
    expect(secondExit.killed).toBe(true);
    expect(await stoppedWriting(current(), 'process-stop-marker')).toBe(true);
  });

  // Field checks are the caller's (validateRuntimeCommand); where the cwd leads at the start is the runtime's.
  it('refuses a cwd that is missing or leads out of the workspace, by field name, before starting anything', async () => {
    const { runtime, workspace } = current();
    expect((await runtime.run({ ...conformanceCommand(current()), command: 'ln -sfn / process-out' })).exitCode).toBe(
      0,
    );
    await expect(start('true', { cwd: join(workspace, 'process-missing') })).rejects.toMatchObject(commandError('cwd'));
    await expect(start('true', { cwd: join(workspace, 'process-out') })).rejects.toMatchObject(commandError('cwd'));
  });
}
