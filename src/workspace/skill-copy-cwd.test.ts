import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { LocalRuntime } from '../runtime/local-runtime.js';
import type { WorkspaceFiles } from '../runtime/workspace-files.js';
import { createInMemoryStateView } from '../state/in-memory-state-view.js';
import { loadedKey } from '../state/state-keys.js';
import type { ToolDefinition } from '../tools/types.js';
import { createExecutionTools } from './tools/execution-tools.js';
import { createWorkspaceManager } from './workspace-manager.js';

// A skill_run's default cwd is the skill's copy, which staging has just found to be a folder: it
// is not made again. Once a command has run since, it is.
let temporary: string;
beforeEach(async () => {
  temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-copy-cwd-'));
});
afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

const limits = { timeoutMs: 10_000, maxOutputBytes: 4096 };
const repository = createMemorySkillRepository([{ name: 'probe', description: 'Probe.', body: 'Run things.' }]);

/** A local runtime whose workspace files write down every folder they are asked to make. */
function countingRuntime(made: string[]): LocalRuntime {
  const runtime = new LocalRuntime();
  const files = runtime.files.bind(runtime);
  runtime.files = (root: string): WorkspaceFiles => {
    const inner = files(root);
    return Object.assign(Object.create(inner) as WorkspaceFiles, {
      makeFolder: (relative: string, options?: { exclusive?: boolean }) => {
        made.push(relative);
        return inner.makeFolder(relative, options);
      },
    });
  };
  return runtime;
}

describe("the skill copy as a command's folder", () => {
  it('is not made again when staging has just found it', async () => {
    const made: string[] = [];
    const workspaces = createWorkspaceManager({
      runtime: countingRuntime(made),
      repository,
      baseDir: path.join(temporary, 'base'),
    });
    const [skillRun] = createExecutionTools({ workspaces }) as [ToolDefinition];
    const context = {
      sessionId: 's',
      agentName: 'a',
      state: createInMemoryStateView({ [loadedKey('a', 'probe')]: '1' }),
    };
    const call = () =>
      skillRun.execute(
        skillRun.inputSchema.parse({ skill: 'probe', command: 'pwd', output_files: [] }),
        context,
      ) as Promise<{
        exit_code: number;
        stdout: string;
      }>;
    await call();
    made.length = 0;
    const second = await call();
    expect(second.exit_code).toBe(0);
    expect(second.stdout.trim()).toMatch(/\/skills\/probe$/);
    expect(made.filter((folder) => folder.startsWith('skills'))).toEqual([]);
    expect(made.filter((folder) => folder.startsWith('runs/run_'))).toHaveLength(1);
  });

  it('is made again for a run after a command removed it', async () => {
    const made: string[] = [];
    const workspaces = createWorkspaceManager({
      runtime: countingRuntime(made),
      repository,
      baseDir: path.join(temporary, 'base'),
    });
    const workspace = await workspaces.workspace('removed');
    await workspace.stageSkill('probe');
    const removal = await workspace.run({ ...limits, skill: 'probe', command: 'rm -rf "$SKILLS_DIR/probe"' });
    expect(removal.result.exitCode).toBe(0);
    made.length = 0;
    const after = await workspace.run({ ...limits, skill: 'probe', command: 'pwd' });
    expect(after.result.exitCode).toBe(0);
    expect(after.result.stdout.trim()).toMatch(/\/skills\/probe$/);
    expect(made).toContain('skills/probe');
  });
});

describe("the skill copy as a command's folder, after inputs were placed", () => {
  // An input may be placed at `skills/<name>` itself: whatever sat there (the copy staging just
  // found) is replaced, by a file or by a link. The copy is then not made again, but the runtime
  // still judges the cwd it is handed: the run is refused, never run through the link or in a file.
  it('is refused when an input placed a link over the copy', async () => {
    const outside = path.join(temporary, 'outside');
    await mkdir(outside);
    const workspaces = createWorkspaceManager({
      runtime: new LocalRuntime(),
      repository,
      baseDir: path.join(temporary, 'base'),
    });
    const workspace = await workspaces.workspace('linked');
    await workspace.stageSkill('probe');
    await workspace.stageInputs([{ from: outside, mode: 'link', to: 'skills/probe' }], { hostAccess: true });
    const outcome = workspace.run({ ...limits, skill: 'probe', command: 'pwd -P' });
    await expect(outcome).rejects.toThrow(/"cwd".*is not inside the workspace/);
  });

  it('is refused when an input placed a file over the copy', async () => {
    const workspaces = createWorkspaceManager({
      runtime: new LocalRuntime(),
      repository,
      baseDir: path.join(temporary, 'base'),
    });
    const workspace = await workspaces.workspace('file');
    await workspace.stageSkill('probe');
    await workspace.stageInputs([{ from: 'skill://probe/SKILL.md', to: 'skills/probe' }], { hostAccess: false });
    await expect(workspace.run({ ...limits, skill: 'probe', command: 'pwd -P' })).rejects.toThrow(
      /"cwd".*is not a directory/,
    );
  });
});
