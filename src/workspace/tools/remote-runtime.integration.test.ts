import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../../test/support/services.js';
import { createFsSkillRepository } from '../../repository/fs-skill-repository.js';
import { createInMemoryStateView } from '../../state/in-memory-state-view.js';
import { loadedKey } from '../../state/state-keys.js';
import type { ToolContext, ToolDefinition } from '../../tools/types.js';
import { createRemoteRuntime, type RemoteRuntime } from '../../worker/remote-runtime.js';
import { startWorkerProcess, type WorkerProcess } from '../../worker/testing/worker-process.js';
import { createWorkspaceManager, type WorkspaceManager } from '../workspace-manager.js';
import { createExecutionTools } from './execution-tools.js';
import type { SkillRunResult } from './run-result.js';

/**
 * skill_run and workspace_exec end to end on a runtime whose workspaces live on a sandbox worker
 * process (`skillbox worker`, through src/worker/remote-runtime.ts): staging, inputs, metadata, the quota and output files all
 * travel through the runtime's file access, and the host's workspace folder stays empty.
 */
describe.runIf(sandboxWorks)('skill_run on a remote runtime', () => {
  let temporary: string;
  let runtime: RemoteRuntime;
  let worker: WorkerProcess;
  let workspaces: WorkspaceManager;
  let run: (input: Record<string, unknown>) => Promise<SkillRunResult>;
  let exec: (input: Record<string, unknown>) => Promise<SkillRunResult>;

  beforeAll(async () => {
    temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-remote-run-'));
    await mkdir(path.join(temporary, 'skills', 'maker', 'scripts'), { recursive: true });
    await writeFile(
      path.join(temporary, 'skills', 'maker', 'SKILL.md'),
      '---\nname: maker\ndescription: Makes files for tests.\n---\nRun scripts/make.sh\n',
    );
    await writeFile(
      path.join(temporary, 'skills', 'maker', 'scripts', 'make.sh'),
      '#!/bin/sh\nprintf "made %s" "$1" > "$OUTPUT_DIR/$1.txt"\n',
      { mode: 0o755 },
    );
    worker = await startWorkerProcess();
    runtime = createRemoteRuntime({ url: worker.url, secret: worker.secret });
    const repository = await createFsSkillRepository({ roots: [path.join(temporary, 'skills')] });
    workspaces = createWorkspaceManager({ runtime, repository, baseDir: path.join(temporary, 'workspaces') });
    const [skillRun, workspaceExec] = createExecutionTools({ workspaces }) as [ToolDefinition, ToolDefinition];
    const state = createInMemoryStateView();
    state.set(loadedKey('agent', 'maker'), '1');
    const context: ToolContext = { sessionId: 'remote-1', agentName: 'agent', state };
    run = (input) => skillRun.execute(skillRun.inputSchema.parse(input), context) as Promise<SkillRunResult>;
    exec = (input) => workspaceExec.execute(workspaceExec.inputSchema.parse(input), context) as Promise<SkillRunResult>;
  });

  afterAll(async () => {
    await workspaces?.cleanup('remote-1');
    await runtime?.close();
    await worker?.stop();
    await rm(temporary, { recursive: true, force: true });
  });

  it('stages the skill, runs it in the sandbox of the worker and returns the file it wrote', async () => {
    const result = await run({ skill: 'maker', command: 'scripts/make.sh hello' });
    expect(result.exit_code).toBe(0);
    expect(result.output_files.map((file) => [file.name, file.content])).toEqual([['out/hello.txt', 'made hello']]);
    const workspace = await workspaces.workspace('remote-1');
    expect(await readdir(workspace.root)).toEqual([]);
    expect((await workspace.metadata()).skills.maker?.rel_path).toBe('skills/maker');
  });

  it('stages inputs, collects named output files and keeps the staging record across runs', async () => {
    const result = await run({
      skill: 'maker',
      command: 'wc -c < inputs/make.sh > out/size.txt && ls',
      inputs: [{ from: 'skill://maker/scripts/make.sh' }],
      output_files: ['out/size.txt'],
    });
    expect(result.stderr).toBe('');
    expect(result.exit_code).toBe(0);
    expect(result.stdout.split('\n')).toEqual(expect.arrayContaining(['SKILL.md', 'inputs', 'out', 'scripts']));
    expect(result.output_files.map((file) => [file.name, file.content?.trim()])).toEqual([['out/size.txt', '55']]);
    const workspace = await workspaces.workspace('remote-1');
    const metadata = await workspace.metadata();
    expect(metadata.inputs.map((input) => input.to)).toEqual(['work/inputs/make.sh']);
    const again = await workspace.stageSkill('maker');
    expect(again.staged).toBe(false);
  });

  it('runs workspace_exec in the root of the same workspace', async () => {
    const result = await exec({ command: 'cat out/hello.txt > out/again.txt; ls' });
    expect(result.stdout.split('\n')).toEqual(
      expect.arrayContaining(['metadata.json', 'out', 'runs', 'skills', 'work']),
    );
    expect(result.output_files.map((file) => [file.name, file.content])).toEqual([['out/again.txt', 'made hello']]);
  });

  it('stops a run that passes the workspace quota, measured on the worker', async () => {
    const [skillRun] = createExecutionTools({ workspaces, workspaceQuota: { maxFiles: 40 } }) as [ToolDefinition];
    const state = createInMemoryStateView();
    state.set(loadedKey('agent', 'maker'), '1');
    const result = (await skillRun.execute(
      skillRun.inputSchema.parse({ skill: 'maker', command: 'for i in $(seq 200); do touch ../../work/f$i; done' }),
      { sessionId: 'remote-1', agentName: 'agent', state },
    )) as SkillRunResult;
    expect(result.warnings.join('\n')).toMatch(/more than 40 files/);
  });

  it('reads, writes, edits and searches files through the worker with the file tools', async () => {
    const tools = new Map(createExecutionTools({ workspaces, fileTools: true }).map((tool) => [tool.name, tool]));
    const context: ToolContext = { sessionId: 'remote-1', agentName: 'agent', state: createInMemoryStateView() };
    const call = (name: string, input: Record<string, unknown>) => {
      const tool = tools.get(name) as ToolDefinition;
      return tool.execute(tool.inputSchema.parse(input), context) as Promise<Record<string, unknown>>;
    };
    expect(await call('workspace_write', { path: 'work/remote.txt', content: 'alpha\nbeta\n' })).toMatchObject({
      created: true,
    });
    await call('workspace_edit', { path: 'work/remote.txt', old_string: 'beta', new_string: 'gamma' });
    expect(await call('workspace_read', { path: 'work/remote.txt' })).toMatchObject({
      content: '     1\talpha\n     2\tgamma',
    });
    expect(await call('workspace_grep', { pattern: 'gamma', path: 'work' })).toMatchObject({
      matches: [{ path: 'work/remote.txt', line: 2, text: 'gamma' }],
    });
    expect(await exec({ command: 'cat work/remote.txt' })).toMatchObject({ stdout: 'alpha\ngamma\n' });
    const workspace = await workspaces.workspace('remote-1');
    expect(await readdir(workspace.root)).toEqual([]);
  });
});
