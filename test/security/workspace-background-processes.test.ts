import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { SandboxRuntime } from '../../src/runtime/sandbox-runtime.js';
import { createInMemoryStateView } from '../../src/state/in-memory-state-view.js';
import type { ToolContext, ToolDefinition } from '../../src/tools/types.js';
import type { ExecutionToolsOptions } from '../../src/workspace/tools/execution-options.js';
import { createExecutionTools } from '../../src/workspace/tools/execution-tools.js';
import type { ProcessPollResult } from '../../src/workspace/tools/process-result.js';
import { createWorkspaceManager, type WorkspaceManager } from '../../src/workspace/workspace-manager.js';
import { retainedBytes } from '../support/retained-memory.js';
import { sandboxWorks } from '../support/services.js';

/** Host processes whose command line contains `token`: what a background process left running. */
function hostProcessesWith(token: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').includes(token))
        found.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

async function eventually(check: () => boolean, limitMs = 5000): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

async function fixture(options: Omit<ExecutionToolsOptions, 'workspaces'> = {}) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'skillbox-background-security-'));
  await mkdir(path.join(root, 'skills'), { recursive: true });
  const hostSecret = path.join(root, 'host-secret.txt');
  await writeFile(hostSecret, 'host secret');
  const workspaces: WorkspaceManager = createWorkspaceManager({
    runtime: new SandboxRuntime(),
    repository: await createFsSkillRepository({ roots: [path.join(root, 'skills')] }),
    baseDir: path.join(root, 'workspaces'),
  });
  const tools = new Map(
    createExecutionTools({ backgroundProcesses: true, ...options, workspaces }).map((tool) => [tool.name, tool]),
  );
  const context = (sessionId: string, owner: { userId?: string } = {}): ToolContext => ({
    sessionId,
    ...owner,
    agentName: 'agent',
    state: createInMemoryStateView({}),
  });
  const call = (name: string, input: Record<string, unknown>, sessionId: string, owner: { userId?: string } = {}) => {
    const tool = tools.get(name) as ToolDefinition;
    return tool.execute(tool.inputSchema.parse(input), context(sessionId, owner)) as Promise<ProcessPollResult>;
  };
  const start = (command: string, sessionId: string, extra: Record<string, unknown> = {}) =>
    call('workspace_exec', { command, background: true, yield_ms: 0, ...extra }, sessionId);
  /** Everything `first` and later polls return until the process has exited. */
  const untilExited = async (first: ProcessPollResult, sessionId: string): Promise<ProcessPollResult> => {
    let all = first;
    while (all.status !== 'exited') {
      const next = await call('workspace_poll', { process_id: first.process_id, yield_ms: 1000 }, sessionId);
      all = { ...next, stdout: all.stdout + next.stdout, stderr: all.stderr + next.stderr };
    }
    return all;
  };
  return {
    root,
    hostSecret,
    workspaces,
    call,
    start,
    untilExited,
    dispose: () => rm(root, { recursive: true, force: true }),
  };
}

describe.runIf(sandboxWorks)('background processes: attacks on their limits and their owner', () => {
  let setup: Awaited<ReturnType<typeof fixture>>;
  beforeAll(async () => {
    setup = await fixture({
      backgroundProcesses: { maxConcurrent: 2, maxLifetimeSeconds: 60, maxBufferedOutputBytes: 64 * 1024 },
    });
  });
  afterAll(async () => {
    for (const session of ['outlive', 'limit', 'owner', 'intruder', 'flood', 'confined'])
      await setup.workspaces.cleanup(session);
    await setup.dispose();
  });

  it('cannot outlive its workspace, not even by double-forking into a new session', async () => {
    // Unique durations name the escapees on the host: one double-forked into a new session, one in the background.
    const started = await setup.start(
      "(setsid sh -c 'sleep 600.0701' &) ; (sleep 600.0702 &) ; echo ready; exec sleep 600",
      'outlive',
      { yield_ms: 5000 },
    );
    expect(started.status).toBe('running');
    const escaped = () => hostProcessesWith('sleep 600.070').length;
    expect(await eventually(() => escaped() >= 2)).toBe(true);
    expect(await setup.workspaces.cleanup('outlive')).toBe(true);
    expect(await eventually(() => escaped() === 0)).toBe(true);
    await expect(setup.call('workspace_poll', { process_id: started.process_id }, 'outlive')).rejects.toThrow(
      /unknown process id/,
    );
  });

  it('cannot exceed the concurrency limit, not even with starts issued at once', async () => {
    const attempts = await Promise.allSettled(Array.from({ length: 5 }, () => setup.start('exec sleep 600', 'limit')));
    const started = attempts.filter((attempt) => attempt.status === 'fulfilled');
    const refused = attempts.filter((attempt) => attempt.status === 'rejected');
    expect(started).toHaveLength(2);
    expect(refused).toHaveLength(3);
    expect(String((refused[0] as PromiseRejectedResult).reason)).toMatch(/most allowed \(2\).*workspace_kill/);
    const first = (started[0] as PromiseFulfilledResult<ProcessPollResult>).value;
    const killed = await setup.call('workspace_kill', { process_id: first.process_id }, 'limit');
    expect(killed).toMatchObject({ status: 'exited', killed: true, exit_code: 137 });
    // A slot freed by the kill can be used again.
    expect((await setup.start('exec sleep 600', 'limit')).status).toBe('running');
  });

  it("cannot poll, write to or kill another session's process, whatever the id", async () => {
    const victim = await setup.start('read -r line; echo "victim got: $line"', 'owner');
    const id = victim.process_id;
    for (const [name, input] of [
      ['workspace_poll', { process_id: id }],
      ['workspace_write_stdin', { process_id: id, chars: 'injected', submit: true }],
      ['workspace_kill', { process_id: id }],
    ] as const) {
      await expect(setup.call(name, input, 'intruder')).rejects.toThrow(/unknown process id/);
      // The same session id for another user is another workspace as well.
      await expect(setup.call(name, input, 'owner', { userId: 'someone-else' })).rejects.toThrow(/unknown process id/);
    }
    const still = await setup.call('workspace_write_stdin', { process_id: id, chars: 'mine', submit: true }, 'owner');
    expect((await setup.untilExited(still, 'owner')).stdout).toBe('victim got: mine\n');
    expect(id).toMatch(/^proc_[A-Za-z0-9_-]{16}$/);
  });

  it('keeps at most the output buffer of a flood in memory and says how much it dropped', async () => {
    // What is retained, not what the collector has yet to free or what is still in the pipe: the
    // flood is finite and has ended before the figure is taken after full collections, so a host
    // that kept it would show a hundred megabytes and one that drops it shows the buffer. (Measuring
    // during the flood counted chunks read between the collection and the reading, tens of
    // megabytes on a loaded machine.)
    const before = await retainedBytes();
    const flood = await setup.start('yes flood-0719 | head -c 100000000', 'flood');
    expect(await eventually(() => hostProcessesWith('flood-0719').length === 0, 60_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const grown = (await retainedBytes()) - before;
    const polled = await setup.call('workspace_poll', { process_id: flood.process_id, yield_ms: 5000 }, 'flood');
    expect(polled.status).toBe('exited');
    expect(Buffer.byteLength(polled.stdout)).toBeLessThanOrEqual(64 * 1024);
    expect(polled.stdout_dropped_bytes).toBeGreaterThan(50 * 1024 * 1024);
    expect(polled.limits_hit).toContain('stdout');
    expect(polled.warnings.join('\n')).toMatch(/bytes of stdout dropped: at most 65536 unread bytes are kept/);
    // A hundred megabytes went through; what stayed is the buffer, nowhere near the total.
    expect(grown).toBeLessThan(16 * 1024 * 1024);
  });

  it('is confined as a run is: no host file outside the mounts, no network', async () => {
    const probe = await setup.start(
      `cat '${setup.hostSecret}'; echo "cat: $?"; (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; echo "tcp: $?"`,
      'confined',
      { yield_ms: 5000 },
    );
    const all = await setup.untilExited(probe, 'confined');
    expect(all.stdout).toContain('cat: 1');
    expect(all.stdout).toContain('tcp: 1');
    expect(all.exit_code).toBe(0);
    expect(JSON.stringify(all)).not.toContain('host secret');
  });
});

describe.runIf(sandboxWorks)('background processes: a pseudo-terminal stays in the sandbox', () => {
  it("gets the sandbox's own terminal and nothing of the host", async () => {
    const setup = await fixture();
    try {
      const probe = await setup.start(`tty; cat '${setup.hostSecret}'; echo "cat: $?"`, 'tty', {
        tty: true,
        yield_ms: 5000,
      });
      const all = await setup.untilExited(probe, 'tty');
      expect(all.stdout).toMatch(/^\/dev\/pts\/\d+\r?$/m);
      expect(all.stdout).toContain('cat: 1');
      expect(JSON.stringify(all)).not.toContain('host secret');
    } finally {
      await setup.workspaces.cleanup('tty');
      await setup.dispose();
    }
  });
});

describe.runIf(sandboxWorks)('background processes: the lifetime limit', () => {
  it('kills a process at its lifetime and caps a longer timeout', async () => {
    const setup = await fixture({ backgroundProcesses: { maxLifetimeSeconds: 1 } });
    try {
      const started = await setup.start('exec sleep 600', 'lifetime', { timeout: 100 });
      expect(started.warnings.join('\n')).toMatch(/timeout 100s capped to 1s/);
      const ended = await setup.call(
        'workspace_poll',
        { process_id: started.process_id, yield_ms: 10_000 },
        'lifetime',
      );
      expect(ended).toMatchObject({ status: 'exited', timed_out: true, exit_code: 137 });
    } finally {
      await setup.workspaces.cleanup('lifetime');
      await setup.dispose();
    }
  });
});
