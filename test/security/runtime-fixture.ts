import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ContainerRuntimeOptions, createContainerRuntime } from '../../src/runtime/container/container-runtime.js';
import type { RuntimeCommand, RuntimeResult, WorkspaceRuntime } from '../../src/runtime/runtime-types.js';
import { SandboxRuntime, type SandboxRuntimeOptions } from '../../src/runtime/sandbox-runtime.js';
import { containerImage, containerSocket } from '../support/services.js';

/** A fresh workspace folder and a sandbox runtime to attack it from; `dispose` removes the folder. */
export function sandboxFixture(options: SandboxRuntimeOptions = {}) {
  const workspace = mkdtempSync(join(tmpdir(), 'skillbox-security-'));
  const runtime = new SandboxRuntime(options);
  const run = commandRunner(runtime, workspace);
  return { workspace, runtime, run, dispose: () => rmSync(workspace, { recursive: true, force: true }) };
}

/** Host pids whose command line contains `token`: what a run left alive. */
export function hostProcessesMentioning(token: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (commandLine.includes(token)) found.push(Number(entry));
    } catch {
      // exited while listing
    }
  }
  return found;
}

/** Runs a shell command in `workspace` with the attacks' usual PATH, timeout and output cap. */
function commandRunner(runtime: WorkspaceRuntime, workspace: string) {
  return (command: string, extra: Partial<RuntimeCommand> = {}): Promise<RuntimeResult> =>
    runtime.run({
      workspaceRoot: workspace,
      cwd: workspace,
      env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
      timeoutMs: 10_000,
      maxOutputBytes: 64 * 1024,
      command,
      ...extra,
    });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A container runtime (through the test Engine API socket) and a workspace name to attack it from;
 * `dispose` removes the workspace's containers and volume.
 */
export function containerFixture(options: Partial<ContainerRuntimeOptions> = {}) {
  const workspace = `/skillbox-security-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const runtime = createContainerRuntime({ image: containerImage, socketPath: containerSocket, ...options });
  const run = commandRunner(runtime, workspace);
  const dispose = async () => {
    await runtime.files(workspace).remove('');
    runtime.close();
  };
  return { workspace, runtime, run, dispose };
}
