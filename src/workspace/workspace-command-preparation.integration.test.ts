import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../test/support/services.js';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { SandboxRuntime } from '../runtime/sandbox-runtime.js';
import type { Workspace } from './workspace.js';
import { createWorkspaceManager, type WorkspaceManager } from './workspace-manager.js';

// What a run and a background start share (Workspace.prepareCommand): the layout, the skill, the
// cwd, the run folder and the environment, through the real sandbox.

let scratch: string;
let workspaces: WorkspaceManager;
let round = 0;
const limits = { timeoutMs: 10_000, maxOutputBytes: 64 * 1024 };

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-command-preparation-'));
  workspaces = createWorkspaceManager({
    runtime: new SandboxRuntime(),
    repository: createMemorySkillRepository([
      { name: 'tools', description: 'Tools.', body: 'Run.', files: { 'bin/hello': '#!/bin/sh\necho hello\n' } },
    ]),
    baseDir: join(scratch, 'workspaces'),
  });
});
afterAll(async () => {
  for (let index = 1; index <= round; index += 1) await workspaces.cleanup(`session-${index}`);
  await rm(scratch, { recursive: true, force: true });
});

async function freshWorkspace(): Promise<Workspace> {
  round += 1;
  return workspaces.workspace(`session-${round}`);
}
const entries = (workspace: Workspace, folder: string) => readdir(join(workspace.root, folder)).catch(() => []);

describe.runIf(sandboxWorks)('Workspace: preparing a command', () => {
  it('repairs the layout before every run while a background process runs, which may remove out/ at any time', async () => {
    const workspace = await freshWorkspace();
    const process = await workspace.start({
      command: 'read -r go; rm -rf out; echo removed; exec sleep 60',
      ...limits,
      maxConcurrent: 1,
    });
    try {
      // Staging checks the layout (as the first step of a tool call does) ...
      await workspace.stageSkill('tools');
      // ... then the process removes out/ before the call's run starts.
      await process.handle.writeStdin('go\n');
      let said = '';
      for (let attempt = 0; attempt < 50 && !said.includes('removed'); attempt += 1)
        said += (await process.handle.read(200)).stdout;
      expect(said).toBe('removed\n');
      const outcome = await workspace.run({ command: 'echo result > "$OUTPUT_DIR/result.txt"', ...limits });
      expect(outcome.result).toMatchObject({ exitCode: 0, stderr: '' });
      expect(await entries(workspace, 'out')).toEqual(['result.txt']);
    } finally {
      await workspace.stopProcesses();
    }
  }, 60_000);

  it('refuses a skill that is not staged, or whose name is not a skill name, before making anything', async () => {
    const workspace = await freshWorkspace();
    await expect(workspace.run({ skill: 'tools', command: 'pwd', ...limits })).rejects.toMatchObject({
      code: 'SKILL_STAGING_FAILED',
      message: expect.stringContaining('"tools": it is not staged in this workspace'),
    });
    await expect(
      workspace.start({ skill: 'tools', command: 'pwd', ...limits, maxConcurrent: 1 }),
    ).rejects.toMatchObject({ code: 'SKILL_STAGING_FAILED' });
    for (const name of ['../../tmp', 'x/../..', '.hidden']) {
      await expect(workspace.run({ skill: name, command: 'pwd', ...limits })).rejects.toMatchObject({
        code: 'SKILL_STAGING_FAILED',
        message: expect.stringContaining(`"${name}"`),
      });
    }
    expect(await entries(workspace, 'skills')).toEqual([]);
    expect(await entries(workspace, 'runs')).toEqual([]);

    await workspace.stageSkill('tools');
    const staged = await workspace.run({ skill: 'tools', command: 'sh bin/hello; pwd', ...limits });
    expect(staged.result.stdout).toMatch(/^hello\n.*\/skills\/tools\n$/);
  }, 60_000);

  it('leaves no run folder behind for a command refused for its environment, run or background', async () => {
    const workspace = await freshWorkspace();
    await expect(workspace.run({ command: 'true', env: { LD_PRELOAD: '/x.so' }, ...limits })).rejects.toMatchObject({
      code: 'RUN_ENV_REFUSED',
    });
    await expect(
      workspace.start({ command: 'true', env: { LD_PRELOAD: '/x.so' }, ...limits, maxConcurrent: 1 }),
    ).rejects.toMatchObject({ code: 'RUN_ENV_REFUSED' });
    expect(await entries(workspace, 'runs')).toEqual([]);
  }, 60_000);
});
