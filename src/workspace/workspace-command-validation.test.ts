import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { LocalRuntime } from '../runtime/local-runtime.js';
import type { WorkspaceRuntime } from '../runtime/runtime-types.js';
import { createWorkspaceManager } from './workspace-manager.js';

// The workspace layer checks a command's fields once, before the runtime sees it
// (validate-command.ts), so no runtime has to. A refused command reaches no runtime and leaves no
// run folder. The runtime here counts what reached it and runs it for real.
let temporary: string;
let calls: string[];

function countingRuntime(): WorkspaceRuntime {
  const inner = new LocalRuntime();
  return {
    kind: 'counting',
    isolated: false,
    guestPath: (hostPath, workspaceRoot) => inner.guestPath(hostPath, workspaceRoot),
    files: (workspaceRoot) => inner.files(workspaceRoot),
    run: (command) => {
      calls.push('run');
      return inner.run(command);
    },
    start: (command) => {
      calls.push('start');
      return inner.start(command);
    },
    stopProcesses: (workspaceRoot) => inner.stopProcesses(workspaceRoot),
  };
}

beforeEach(async () => {
  temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-command-check-'));
  calls = [];
});

afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

describe('the workspace checks command fields before the runtime', () => {
  const open = () =>
    createWorkspaceManager({
      runtime: countingRuntime(),
      repository: createMemorySkillRepository([]),
      baseDir: path.join(temporary, 'base'),
    }).workspace('checked');
  const limits = { timeoutMs: 5_000, maxOutputBytes: 1024 };

  it('refuses a bad field of a run by name; the runtime is not called and no run folder is left', async () => {
    const workspace = await open();
    await expect(workspace.run({ ...limits, command: 'true', timeoutMs: 0 })).rejects.toMatchObject({
      code: 'RUNTIME_COMMAND_INVALID',
      field: 'timeoutMs',
    });
    await expect(workspace.run({ ...limits, command: 'true', timeoutMs: 3_000_000_000 })).rejects.toMatchObject({
      code: 'RUNTIME_COMMAND_INVALID',
      field: 'timeoutMs',
    });
    await expect(workspace.run({ ...limits, command: 'true', argv: ['true'] })).rejects.toMatchObject({
      code: 'RUNTIME_COMMAND_INVALID',
      field: 'command',
    });
    await expect(workspace.run({ ...limits, maxOutputBytes: -1, argv: ['true'] })).rejects.toMatchObject({
      code: 'RUNTIME_COMMAND_INVALID',
      field: 'maxOutputBytes',
    });
    expect(calls).toEqual([]);
    expect(await readdir(path.join(workspace.root, 'runs'))).toEqual([]);
    const ran = await workspace.run({ ...limits, command: 'echo ran' });
    expect(ran.result.stdout).toBe('ran\n');
    expect(calls).toEqual(['run']);
  });

  it('refuses a bad field of a background start the same way', async () => {
    const workspace = await open();
    await expect(
      workspace.start({ ...limits, command: 'sleep 1', timeoutMs: Number.NaN, maxConcurrent: 2 }),
    ).rejects.toMatchObject({ code: 'RUNTIME_COMMAND_INVALID', field: 'timeoutMs' });
    expect(calls).toEqual([]);
    expect(workspace.processes.running).toBe(0);
    expect(await readdir(path.join(workspace.root, 'runs'))).toEqual([]);
  });
});
