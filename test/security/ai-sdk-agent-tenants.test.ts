import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSkillAgent } from '../../src/integrations/ai-sdk/skill-agent.js';
import { createScriptedModel, type ScriptedStep } from '../../src/integrations/ai-sdk/testing/scripted-model.js';
import { createFsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import type { SkillRepository } from '../../src/repository/types.js';
import { SandboxRuntime } from '../../src/runtime/sandbox-runtime.js';
import { createWorkspaceManager, type WorkspaceManager } from '../../src/workspace/workspace-manager.js';

// Session ids are often chosen by the client (useChat's chat id) or numbered per user, so two
// users of one `asAiSdkAgent()` may send the same one. The workspace must follow the user (and
// the app), as it does for `run`, or user B reads A's files and drives A's processes.
describe.runIf(process.platform === 'linux')('AI SDK agent security: users sharing a session id', () => {
  let root: string;
  let repository: SkillRepository;
  let workspaces: WorkspaceManager;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'skillbox-agent-tenants-'));
    await mkdir(path.join(root, 'skills'), { recursive: true });
    repository = await createFsSkillRepository({ roots: [path.join(root, 'skills')] });
    workspaces = createWorkspaceManager({
      runtime: new SandboxRuntime(),
      repository,
      baseDir: path.join(root, 'workspaces'),
    });
  });
  afterAll(async () => {
    for (const userId of ['alice', 'bob'])
      await workspaces.cleanup({ appName: 'shop', userId, sessionId: 'chat-1' }).catch(() => undefined);
    await workspaces.cleanup('chat-1').catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  });

  it("does not let user B read user A's output files or poll, feed or kill A's background process", async () => {
    let aliceProcess = 'none-started';
    const processCall = (name: string, input: () => Record<string, unknown>): ScriptedStep => ({
      get toolCalls() {
        return [{ name, input: input(), id: name }];
      },
    });
    const { model } = createScriptedModel([
      // Alice: a secret in out/, and a process that keeps it in memory.
      {
        toolCalls: [
          { name: 'workspace_exec', input: { command: 'echo ALICE-SECRET > out/secret.txt' }, id: 'write' },
          {
            name: 'workspace_exec',
            input: { command: 'read -r line; echo "ALICE-PROCESS $line"', background: true, yield_ms: 0 },
            id: 'start',
          },
        ],
      },
      { text: 'stored' },
      // Bob, same session id.
      {
        toolCalls: [
          {
            name: 'workspace_exec',
            input: { command: 'cat out/secret.txt; ls -R .; true', output_files: ['out/**'] },
            id: 'read',
          },
        ],
      },
      processCall('workspace_write_stdin', () => ({ process_id: aliceProcess, chars: 'from bob', submit: true })),
      processCall('workspace_poll', () => ({ process_id: aliceProcess, yield_ms: 500 })),
      processCall('workspace_kill', () => ({ process_id: aliceProcess })),
      { text: 'looked' },
    ]);
    const agent = createSkillAgent({
      model,
      repository,
      workspaces,
      appName: 'shop',
      execution: { backgroundProcesses: true },
    }).asAiSdkAgent();

    const alice = await agent.generate({ prompt: 'keep a secret', options: { userId: 'alice', sessionId: 'chat-1' } });
    const started = alice.steps[0]?.toolResults.find((result) => result.toolCallId === 'start');
    aliceProcess = (started?.output as { process_id: string }).process_id;
    expect(aliceProcess).toMatch(/^proc_/);

    const bob = await agent.generate({ prompt: 'look around', options: { userId: 'bob', sessionId: 'chat-1' } });
    const bobSaw = JSON.stringify(bob.steps.map((step) => step.content));
    expect(bobSaw).not.toContain('ALICE-SECRET');
    for (const step of bob.steps.slice(1, 4)) {
      const error = step.content.find((part) => part.type === 'tool-error');
      expect(error, `step ${step.toolCalls[0]?.toolName}`).toBeDefined();
      expect(String((error as { error: unknown }).error)).toMatch(/unknown process id/);
    }

    // Alice's workspace is keyed by app, user and session, and her process ran on untouched.
    const aliceWorkspace = await workspaces.workspace({ appName: 'shop', userId: 'alice', sessionId: 'chat-1' });
    const record = aliceWorkspace.processes.get(aliceProcess);
    expect(record.exit).toBeUndefined();
    await record.handle.writeStdin('from alice\n');
    const exit = await record.handle.exited;
    expect(exit).toMatchObject({ exitCode: 0 });
    expect((await record.handle.read(0)).stdout).toBe('ALICE-PROCESS from alice\n');
  }, 60_000);
});
