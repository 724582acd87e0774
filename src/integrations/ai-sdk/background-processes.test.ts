import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { createRuntime } from '../../runtime/create-runtime.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';
import type { SkillAgentEvent } from './agent-events.js';
import { createSkillAgent } from './skill-agent.js';
import { createScriptedModel, type ScriptedStep } from './testing/scripted-model.js';

let scratch: string;
let repository: FsSkillRepository;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-agent-background-'));
  await mkdir(join(scratch, 'skills'), { recursive: true });
  repository = await FsSkillRepository.open({ roots: [join(scratch, 'skills')] });
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('createSkillAgent with background processes', () => {
  it('starts an interactive program, answers its prompt and reads its exit, through the model-facing tools', async () => {
    const workspaces = createWorkspaceManager({
      runtime: createRuntime({ kind: 'local' }),
      repository,
      baseDir: join(scratch, 'workspaces'),
    });
    const workspace = await workspaces.workspace({ userId: 'u', sessionId: 's' });
    // The model names the process by the id the first call returned; the table is where that id lives.
    const processId = (): string => workspace.processes.list()[0]?.id ?? 'none-started';
    const followUp = (name: string, input: () => Record<string, unknown>): ScriptedStep => ({
      get toolCalls() {
        return [{ name, input: input(), id: name }];
      },
    });
    const { model } = createScriptedModel([
      {
        toolCalls: [
          {
            name: 'workspace_exec',
            input: { command: 'printf "name? "; read -r name; echo "hello $name"', background: true, yield_ms: 2000 },
            id: 'start',
          },
        ],
      },
      followUp('workspace_write_stdin', () => ({
        process_id: processId(),
        chars: 'Ada',
        submit: true,
        yield_ms: 2000,
      })),
      followUp('workspace_poll', () => ({ process_id: processId(), yield_ms: 2000 })),
      { text: 'done' },
    ]);
    const agent = createSkillAgent({
      model,
      repository,
      workspaces,
      execution: { backgroundProcesses: true },
    });
    const events: SkillAgentEvent[] = [];
    for await (const event of agent.run({ userId: 'u', sessionId: 's', message: 'greet Ada' })) events.push(event);
    const results = events.filter(
      (event): event is Extract<SkillAgentEvent, { type: 'tool-result' }> => event.type === 'tool-result',
    );
    expect(results.map((result) => result.error)).toEqual([undefined, undefined, undefined]);
    const [start, write, poll] = results.map((result) => result.output as Record<string, unknown>);
    expect(start).toMatchObject({ status: 'running', stdout: 'name? ', process_id: processId() });
    const answered = `${write?.stdout as string}${poll?.stdout as string}`;
    expect(answered).toBe('hello Ada\n');
    expect(write?.status === 'exited' ? write : poll).toMatchObject({ status: 'exited', exit_code: 0 });
    await workspaces.cleanup({ userId: 'u', sessionId: 's' });
  });
});
