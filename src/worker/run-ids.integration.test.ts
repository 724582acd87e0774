import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../test/support/services.js';
import { createFsSkillRepository } from '../repository/fs-skill-repository.js';
import { createRuntime } from '../runtime/create-runtime.js';
import { createRecordingRuntime, type RecordingRuntime } from '../runtime/testing/recording-runtime.js';
import { createInMemoryStateView } from '../state/in-memory-state-view.js';
import { loadedKey } from '../state/state-keys.js';
import type { ToolContext, ToolDefinition } from '../tools/types.js';
import { createExecutionTools } from '../workspace/tools/execution-tools.js';
import type { SkillRunResult } from '../workspace/tools/run-result.js';
import { createWorkspaceManager, type WorkspaceManager } from '../workspace/workspace-manager.js';
import { createMemoryRunLedger } from './memory-run-ledger.js';
import { createRemoteRuntime, type RemoteRuntime } from './remote-runtime.js';
import { createSandboxWorker, type SandboxWorker } from './sandbox-worker.js';
import { ledgerAnswerWarning } from './worker-runs.js';

/**
 * The tools name their runs when a durable turn gives them a prefix, and a worker with a ledger
 * answers a repeated name with the recorded result: a replayed tool call does not run its script twice.
 */
describe.runIf(sandboxWorks)('run ids from the tools to the run ledger', () => {
  let temporary: string;
  let worker: SandboxWorker;
  let remote: RemoteRuntime;
  let runtime: RecordingRuntime;
  let workspaces: WorkspaceManager;
  let tools: [ToolDefinition, ToolDefinition];
  const state = createInMemoryStateView();
  const context = (toolCallId: string, runIdPrefix?: string): ToolContext => ({
    sessionId: 'ids-1',
    agentName: 'agent',
    state,
    toolCallId,
    ...(runIdPrefix === undefined ? {} : { runIdPrefix }),
  });
  const call = (tool: ToolDefinition, input: Record<string, unknown>, toolContext: ToolContext) =>
    tool.execute(tool.inputSchema.parse(input), toolContext) as Promise<SkillRunResult>;
  const count = async (): Promise<number> => {
    const files = (await workspaces.workspace('ids-1')).files;
    if ((await files.inspect('work/count')) === undefined) return 0;
    return (await files.read('work/count', 10_000)).data.toString().split('\n').filter(Boolean).length;
  };

  beforeAll(async () => {
    temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-run-ids-'));
    for (const [name, metadata] of [
      ['plain', ''],
      ['again', 'metadata:\n  skillbox-retry: safe\n'],
    ] as const) {
      await mkdir(path.join(temporary, 'skills', name), { recursive: true });
      await writeFile(
        path.join(temporary, 'skills', name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: Counts its runs.\n${metadata}---\nRun it.\n`,
      );
      state.set(loadedKey('agent', name), '1');
    }
    const secret = randomBytes(32).toString('hex');
    worker = await createSandboxWorker({
      runtime: createRuntime({ kind: 'sandbox' }),
      secret,
      ledger: createMemoryRunLedger(),
    });
    remote = createRemoteRuntime({ url: worker.url, secret });
    runtime = createRecordingRuntime(remote);
    const repository = await createFsSkillRepository({ roots: [path.join(temporary, 'skills')] });
    workspaces = createWorkspaceManager({ runtime, repository, baseDir: path.join(temporary, 'workspaces') });
    tools = createExecutionTools({ workspaces }) as [ToolDefinition, ToolDefinition];
  });
  afterAll(async () => {
    await workspaces?.cleanup('ids-1');
    await remote?.close();
    await worker?.close();
    await rm(temporary, { recursive: true, force: true });
  });

  it('skill_run: the same prefix and tool call run once; the repeat gets the recorded result', async () => {
    const [skillRun] = tools;
    const first = await call(
      skillRun,
      { skill: 'plain', command: 'echo run >> "$WORK_DIR/count"; echo $$' },
      context('call-1', 'inv-A'),
    );
    const again = await call(
      skillRun,
      { skill: 'plain', command: 'echo run >> "$WORK_DIR/count"; echo $$' },
      context('call-1', 'inv-A'),
    );
    expect(first.exit_code).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(again.warnings).toContain(ledgerAnswerWarning);
    expect(await count()).toBe(1);
    expect(runtime.runs.at(-1)?.command).toMatchObject({ runId: 'inv-A/call-1' });
    expect(runtime.runs.at(-1)?.command.retrySafe).toBeUndefined();
  });

  it('skill_run: another tool call, or no prefix, runs again', async () => {
    const [skillRun] = tools;
    await call(skillRun, { skill: 'plain', command: 'echo run >> "$WORK_DIR/count"' }, context('call-2', 'inv-A'));
    await call(skillRun, { skill: 'plain', command: 'echo run >> "$WORK_DIR/count"' }, context('call-1'));
    await call(skillRun, { skill: 'plain', command: 'echo run >> "$WORK_DIR/count"' }, context('call-1'));
    expect(await count()).toBe(4);
    expect(runtime.runs.at(-1)?.command.runId).toBeUndefined();
  });

  it('attaches a repeat of a run still going on this worker to it: one run, one result for both', async () => {
    const workspace = (await workspaces.workspace('ids-1')).root;
    const command = {
      workspaceRoot: workspace,
      cwd: workspace,
      command: 'echo attached >> work/count; sleep 1; echo $$',
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 10_000,
      maxOutputBytes: 1024,
      runId: 'inv-C/call-5',
    };
    const before = await count();
    const [one, other] = await Promise.all([remote.run(command), remote.run(command)]);
    expect(one.exitCode).toBe(0);
    expect(other).toEqual(one);
    expect(await count()).toBe(before + 1);
  });

  it('skill_run passes retrySafe for a skill that declares it; workspace_exec never does', async () => {
    const [skillRun, workspaceExec] = tools;
    await call(skillRun, { skill: 'again', command: 'true' }, context('call-3', 'inv-B'));
    expect(runtime.runs.at(-1)?.command).toMatchObject({ runId: 'inv-B/call-3', retrySafe: true });
    const first = await call(workspaceExec, { command: 'echo exec >> work/count' }, context('call-4', 'inv-B'));
    const again = await call(workspaceExec, { command: 'echo exec >> work/count' }, context('call-4', 'inv-B'));
    expect(runtime.runs.at(-1)?.command.runId).toBe('inv-B/call-4');
    expect(runtime.runs.at(-1)?.command.retrySafe).toBeUndefined();
    expect(first.exit_code).toBe(0);
    expect(again.warnings).toContain(ledgerAnswerWarning);
    expect(await count()).toBe(6);
  });
});
