import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { LocalRuntime } from '../runtime/local-runtime.js';
import type { WorkspaceRuntime } from '../runtime/runtime-types.js';
import type { WorkspaceFiles } from '../runtime/workspace-files.js';
import { createWorkspaceManager } from './workspace-manager.js';
import { unlimited } from './workspace-quota.js';

let temporary: string;
beforeEach(async () => {
  temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-usage-'));
});
afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

/** A local runtime whose file access counts the walks of the workspace. */
function countingRuntime(): { runtime: WorkspaceRuntime; walks: () => number } {
  const local = new LocalRuntime();
  let walks = 0;
  const runtime: WorkspaceRuntime = {
    kind: local.kind,
    isolated: local.isolated,
    guestPath: (hostPath, root) => local.guestPath(hostPath, root),
    run: (command) => local.run(command),
    files(root): WorkspaceFiles {
      const files = local.files(root);
      return Object.assign(Object.create(files) as WorkspaceFiles, {
        measure: (limits: Parameters<WorkspaceFiles['measure']>[0]) => {
          walks += 1;
          return files.measure(limits);
        },
      });
    },
  };
  return { runtime, walks: () => walks };
}

describe('Workspace.usage', () => {
  it('walks once between two changes, and again after a run or placed files', async () => {
    const { runtime, walks } = countingRuntime();
    const workspaces = createWorkspaceManager({
      runtime,
      repository: createMemorySkillRepository([]),
      baseDir: path.join(temporary, 'ws'),
      artifacts: false,
    });
    const workspace = await workspaces.workspace('s');
    const first = await workspace.usage(unlimited);
    expect(walks()).toBe(1);
    expect(await workspace.usage(unlimited)).toEqual(first);
    // The same count, judged against a lower limit, without a walk.
    expect(await workspace.usage({ maxBytes: Infinity, maxFiles: 2 })).toMatchObject({ exceeded: 'files' });
    expect(walks()).toBe(1);

    await workspace.run({ command: 'touch a b c', timeoutMs: 5_000, maxOutputBytes: 1024 });
    const afterRun = await workspace.usage(unlimited);
    expect(walks()).toBe(2);
    // Three files (the run folder, left empty, is removed: run-folders.test.ts).
    expect(afterRun.files).toBe(first.files + 3);

    const source = path.join(temporary, 'input.txt');
    await writeFile(source, 'x');
    await workspace.stageInputs([{ from: source }], { hostAccess: true });
    const afterInput = await workspace.usage(unlimited);
    expect(walks()).toBe(3);
    expect(afterInput.files).toBe(afterRun.files + 1);
    expect(afterInput).toEqual(await workspace.files.measure(unlimited));
  });

  it('keeps no count that stopped at a limit: its figures are lower bounds', async () => {
    const { runtime, walks } = countingRuntime();
    const workspaces = createWorkspaceManager({
      runtime,
      repository: createMemorySkillRepository([]),
      baseDir: path.join(temporary, 'ws'),
      artifacts: false,
    });
    const workspace = await workspaces.workspace('s');
    expect((await workspace.usage({ maxBytes: Infinity, maxFiles: 1 })).exceeded).toBe('files');
    await workspace.usage(unlimited);
    expect(walks()).toBe(2);
  });

  it('walks on every count while a background process runs: it writes between the counts', async () => {
    const workspaces = createWorkspaceManager({
      runtime: new LocalRuntime(),
      repository: createMemorySkillRepository([]),
      baseDir: path.join(temporary, 'ws'),
      artifacts: false,
    });
    const workspace = await workspaces.workspace('s');
    const writer = await workspace.start({
      command: 'read line; head -c 100000 /dev/zero > grown.bin; echo done; sleep 30',
      timeoutMs: 30_000,
      maxOutputBytes: 1024,
      maxConcurrent: 1,
    });
    try {
      const before = await workspace.usage(unlimited);
      await writer.handle.writeStdin('go\n');
      let stdout = '';
      for (let attempt = 0; attempt < 50 && !stdout.includes('done'); attempt += 1)
        stdout += (await writer.handle.read(200)).stdout;
      expect(stdout).toContain('done');
      const after = await workspace.usage(unlimited);
      expect(after.bytes).toBeGreaterThanOrEqual(before.bytes + 100_000);
    } finally {
      await workspaces.cleanup('s');
    }
  });
});
