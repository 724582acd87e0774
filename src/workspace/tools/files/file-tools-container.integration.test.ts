import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerEngineWorks, containerImage, containerSocket } from '../../../../test/support/services.js';
import { createMemorySkillRepository } from '../../../repository/memory-skill-repository.js';
import { type ContainerRuntime, createContainerRuntime } from '../../../runtime/container/container-runtime.js';
import { createInMemoryStateView } from '../../../state/in-memory-state-view.js';
import type { ToolContext, ToolDefinition } from '../../../tools/types.js';
import { createWorkspaceManager, type WorkspaceManager } from '../../workspace-manager.js';
import { createExecutionTools } from '../execution-tools.js';

// The file tools on the container runtime: every read and write goes through its WorkspaceFiles
// (the Engine API's archive calls and the helper in the container), none through host paths.
describe.runIf(containerEngineWorks)('the file tools on the container runtime', () => {
  let temporary: string;
  let runtime: ContainerRuntime;
  let workspaces: WorkspaceManager;

  beforeAll(async () => {
    temporary = await mkdtemp(path.join(tmpdir(), 'skillbox-file-tools-container-'));
    runtime = createContainerRuntime({ image: containerImage, socketPath: containerSocket });
    workspaces = createWorkspaceManager({
      runtime,
      repository: createMemorySkillRepository([]),
      baseDir: path.join(temporary, 'workspaces'),
    });
  });
  afterAll(async () => {
    await workspaces?.cleanup('container-files');
    await runtime?.close();
    await rm(temporary, { recursive: true, force: true });
  });

  it('write, edit, read and grep a file the container command then sees', async () => {
    const tools = new Map(createExecutionTools({ workspaces, fileTools: true }).map((tool) => [tool.name, tool]));
    const context: ToolContext = { sessionId: 'container-files', agentName: 'agent', state: createInMemoryStateView() };
    const call = (name: string, input: Record<string, unknown>) => {
      const tool = tools.get(name) as ToolDefinition;
      return tool.execute(tool.inputSchema.parse(input), context) as Promise<Record<string, unknown>>;
    };
    expect(await call('workspace_write', { path: 'work/c.txt', content: 'one\ntwo\n' })).toMatchObject({
      created: true,
    });
    await call('workspace_edit', { path: 'work/c.txt', old_string: 'two', new_string: 'three' });
    expect(await call('workspace_read', { path: 'work/c.txt' })).toMatchObject({
      content: '     1\tone\n     2\tthree',
    });
    expect(await call('workspace_grep', { pattern: 'thr', path: 'work' })).toMatchObject({
      matches: [{ path: 'work/c.txt', line: 2, text: 'three' }],
    });
    expect(await call('workspace_exec', { command: 'cat work/c.txt' })).toMatchObject({ stdout: 'one\nthree\n' });
    const workspace = await workspaces.workspace('container-files');
    expect(await readdir(workspace.root)).toEqual([]);
  }, 120_000);
});
