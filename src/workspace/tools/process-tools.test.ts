import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../../repository/memory-skill-repository.js';
import { LocalRuntime } from '../../runtime/local-runtime.js';
import type { WorkspaceRuntime } from '../../runtime/runtime-types.js';
import { createInMemoryStateView } from '../../state/in-memory-state-view.js';
import type { ToolContext, ToolDefinition } from '../../tools/types.js';
import { createWorkspaceManager } from '../workspace-manager.js';
import type { ExecutionToolsOptions } from './execution-options.js';
import { createExecutionTools } from './execution-tools.js';
import type { ProcessPollResult } from './process-result.js';

const temporary = mkdtempSync(path.join(tmpdir(), 'skillbox-process-tools-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));
const repository = createMemorySkillRepository([]);
let managers = 0;

function toolsFor(
  options: Omit<ExecutionToolsOptions, 'workspaces'> = {},
  runtime: WorkspaceRuntime = new LocalRuntime(),
) {
  managers += 1;
  const workspaces = createWorkspaceManager({ runtime, repository, baseDir: path.join(temporary, `ws-${managers}`) });
  const tools = new Map(
    createExecutionTools({ backgroundProcesses: true, ...options, workspaces }).map((tool) => [tool.name, tool]),
  );
  const context: ToolContext = { sessionId: 'session', agentName: 'agent', state: createInMemoryStateView({}) };
  const call = (name: string, input: Record<string, unknown>) => {
    const tool = tools.get(name) as ToolDefinition;
    return tool.execute(tool.inputSchema.parse(input), context) as Promise<ProcessPollResult>;
  };
  return { tools, workspaces, call };
}

describe('the background process tools', () => {
  it('are built after skill_run and workspace_exec, and left out when turned off or the runtime cannot start processes', () => {
    expect([...toolsFor().tools.keys()]).toEqual([
      'skill_run',
      'workspace_exec',
      'workspace_write_stdin',
      'workspace_poll',
      'workspace_kill',
    ]);
    expect([...toolsFor({ backgroundProcesses: false }).tools.keys()]).toEqual(['skill_run', 'workspace_exec']);
    // Off unless asked for (each request would carry the three tools' definitions).
    expect(
      createExecutionTools({ workspaces: createWorkspaceManager({ runtime: new LocalRuntime(), repository }) }).map(
        (tool) => tool.name,
      ),
    ).toEqual(['skill_run', 'workspace_exec']);
    const local = new LocalRuntime();
    const runOnly: WorkspaceRuntime = {
      kind: 'run-only',
      isolated: false,
      guestPath: (hostPath) => hostPath,
      run: (command) => local.run(command),
      files: (root) => local.files(root),
    };
    const { tools } = toolsFor({}, runOnly);
    expect([...tools.keys()]).toEqual(['skill_run', 'workspace_exec']);
    // The model is not offered `background` where it cannot work.
    expect(() => tools.get('workspace_exec')?.inputSchema.parse({ command: 'true', background: true })).not.toThrow();
    expect(tools.get('workspace_exec')?.inputSchema.parse({ command: 'true', background: true })).not.toHaveProperty(
      'background',
    );
  });

  it('runs in the workspace with the workspace environment, and reports only new output on each poll', async () => {
    const { call, workspaces } = toolsFor();
    const started = await call('workspace_exec', {
      command: 'pwd; echo "$GREETING"; read -r go; echo second',
      cwd: 'work',
      env: { GREETING: 'hi' },
      background: true,
      yield_ms: 3000,
    });
    const root = (await workspaces.workspace('session')).root;
    expect(started).toMatchObject({ status: 'running', stdout: `${root}/work\nhi\n`, stderr: '' });
    expect(started.process_id).toMatch(/^proc_/);
    expect(await call('workspace_poll', { process_id: started.process_id, yield_ms: 0 })).toMatchObject({
      status: 'running',
      stdout: '',
    });
    const answered = await call('workspace_write_stdin', {
      process_id: started.process_id,
      chars: 'go',
      submit: true,
      yield_ms: 3000,
    });
    const last =
      answered.status === 'exited'
        ? answered
        : await call('workspace_poll', { process_id: started.process_id, yield_ms: 5000 });
    expect(`${answered.stdout}${last === answered ? '' : last.stdout}`).toBe('second\n');
    expect(last).toMatchObject({ status: 'exited', exit_code: 0, timed_out: false, killed: false });
    await expect(call('workspace_write_stdin', { process_id: started.process_id, chars: 'late' })).rejects.toThrow(
      /workspace_write_stdin: .*the process has ended/,
    );
    await workspaces.cleanup('session');
  });

  it('runs a program under a pseudo-terminal with tty, through util-linux script', async () => {
    const { call, workspaces } = toolsFor();
    const started = await call('workspace_exec', {
      command: '[ -t 0 ] && [ -t 1 ] && echo "terminal: yes"; read -r answer; echo "answer: $answer"',
      background: true,
      tty: true,
      yield_ms: 3000,
    });
    expect(started.stdout).toContain('terminal: yes');
    const answered = await call('workspace_write_stdin', {
      process_id: started.process_id,
      chars: '42',
      submit: true,
      yield_ms: 3000,
    });
    const last =
      answered.status === 'exited'
        ? answered
        : await call('workspace_poll', { process_id: started.process_id, yield_ms: 5000 });
    expect(`${answered.stdout}${last === answered ? '' : last.stdout}`).toContain('answer: 42');
    expect(last).toMatchObject({ status: 'exited', exit_code: 0 });
    await expect(call('workspace_exec', { command: 'true', tty: true })).rejects.toThrow(/tty needs background: true/);
    await workspaces.cleanup('session');
  });

  it('refuses tty under command allow lists, where script would run programs unchecked', async () => {
    const { call, workspaces } = toolsFor({ allowedCommands: ['echo'] });
    await expect(call('workspace_exec', { command: 'echo x', background: true, tty: true })).rejects.toThrow(
      /tty is not available when command allow\/deny lists are set/,
    );
    await workspaces.cleanup('session');
  });

  it('refuses what a run refuses before starting anything, naming the problem', async () => {
    const { call, workspaces } = toolsFor({ allowedCommands: ['echo'] });
    await expect(call('workspace_exec', { command: 'cat /etc/passwd', background: true })).rejects.toThrow(
      /workspace_exec: .*cat/,
    );
    await expect(call('workspace_exec', { command: 'echo x', cwd: '../..', background: true })).rejects.toThrow(
      /workspace_exec: refused workspace path/,
    );
    await expect(call('workspace_poll', { process_id: 'proc_nothing' })).rejects.toThrow(
      /workspace_poll: unknown process id "proc_nothing"/,
    );
    expect((await workspaces.workspace('session')).processes.list()).toEqual([]);
    await workspaces.cleanup('session');
  });

  it('refuses bad limits at construction with the option named', () => {
    expect(() => toolsFor({ backgroundProcesses: { maxConcurrent: 0 } })).toThrow(/backgroundProcesses\.maxConcurrent/);
    expect(() => toolsFor({ backgroundProcesses: { maxLifetimeSeconds: 1e12 } })).toThrow(
      /backgroundProcesses\.maxLifetimeSeconds/,
    );
  });
});
