import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, type ModelMessage, stepCountIs } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalDecision, ApprovalEvent, ApprovalRequest } from '../../approvals/approval-types.js';
import { SkillboxConfigError } from '../../config/config-error.js';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { createRuntime } from '../../runtime/create-runtime.js';
import { createMemorySessionStore } from '../../sessions/memory-session-store.js';
import { createInMemoryStateView } from '../../state/in-memory-state-view.js';
import { loadedKey } from '../../state/state-keys.js';
import { createWorkspaceManager, type WorkspaceManager } from '../../workspace/workspace-manager.js';
import type { SkillAgentEvent } from './agent-events.js';
import { createSkillAgent } from './skill-agent.js';
import { createSkillCallContext } from './skill-call-context.js';
import { createSkillToolkit } from './skill-toolkit.js';
import { createScriptedModel, type ScriptedStep } from './testing/scripted-model.js';

// The scripts write a marker file on the host (the local runtime runs them unconfined), so "nothing
// ran" is checked where a user would look: the marker is not there.

let scratch: string;
let markers: string;
let repository: FsSkillRepository;
let workspaces: WorkspaceManager;
let counter = 0;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-approvals-'));
  markers = join(scratch, 'markers');
  await mkdir(markers);
  for (const name of ['writer', 'reader']) {
    const skill = join(scratch, 'skills', name);
    await mkdir(join(skill, 'scripts'), { recursive: true });
    await writeFile(
      join(skill, 'SKILL.md'),
      `---\nname: ${name}\ndescription: The ${name} skill.\n---\nRun \`bash scripts/touch.sh FILE\`.\n`,
    );
    await writeFile(join(skill, 'scripts', 'touch.sh'), 'echo ran > "$1"\n');
  }
  repository = await FsSkillRepository.open({ roots: [join(scratch, 'skills')] });
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  workspaces = createWorkspaceManager({
    runtime: createRuntime({ kind: 'local' }),
    repository,
    baseDir: join(scratch, `ws-${++counter}`),
  });
});

function marker(name: string): string {
  return join(markers, `${name}-${counter}`);
}

function runStep(skill: string, file: string, id: string, extra: Record<string, unknown> = {}): ScriptedStep {
  return {
    toolCalls: [{ name: 'skill_run', input: { skill, command: `bash scripts/touch.sh ${file}`, ...extra }, id }],
  };
}

async function collect(events: AsyncIterable<SkillAgentEvent>): Promise<SkillAgentEvent[]> {
  const all: SkillAgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

function resultOf(events: SkillAgentEvent[], toolCallId: string) {
  return events.find(
    (event): event is Extract<SkillAgentEvent, { type: 'tool-result' }> =>
      event.type === 'tool-result' && event.toolCallId === toolCallId,
  );
}

describe('createSkillAgent with approval.decide', () => {
  it('a denied skill_run returns a result saying so, runs nothing, and the request and decision are session events', async () => {
    const file = marker('denied');
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'writer' }, id: 'load' }] },
      runStep('writer', file, 'run', { inputs: [{ from: 'skill://reader/SKILL.md', to: 'work/reader.md' }] }),
      { text: 'ok' },
    ]);
    const asked: ApprovalRequest[] = [];
    const sessions = createMemorySessionStore();
    const agent = createSkillAgent({
      model,
      repository,
      workspaces,
      sessions,
      approval: {
        skills: ['writer'],
        decide: (request) => {
          asked.push(request);
          return 'deny';
        },
      },
    });
    const events = await collect(agent.run({ userId: 'u', sessionId: 's', message: 'write' }));

    expect(existsSync(file)).toBe(false);
    expect(resultOf(events, 'run')?.output).toEqual({
      approval: 'denied',
      message: expect.stringContaining(`Not run: the person denied skill_run of skill "writer"`),
    });
    // The model was told, in the tool result of its call.
    expect(JSON.stringify(calls[2]?.prompt)).toContain('Nothing was executed');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      tool: 'skill_run',
      toolCallId: 'run',
      skill: 'writer',
      command: `bash scripts/touch.sh ${file}`,
      sessionId: 's',
      userId: 'u',
      stagedSkills: ['writer'],
      stagedFiles: ['skills/writer/SKILL.md', 'skills/writer/scripts/touch.sh'],
      inputs: [{ from: 'skill://reader/SKILL.md', to: 'work/reader.md' }],
      remembers: ['skill:writer'],
    });

    const stored = await sessions.getSession({ userId: 'u', sessionId: 's' });
    const approvals = stored?.events.filter((event) => event.type.startsWith('approval-'));
    expect(approvals?.map((event) => [event.type, event.author])).toEqual([
      ['approval-request', 'assistant'],
      ['approval-decision', 'user'],
    ]);
    expect(approvals?.[0]?.content).toMatchObject({ id: 'approval-run', command: `bash scripts/touch.sh ${file}` });
    expect(approvals?.[1]?.content).toEqual({
      requestId: 'approval-run',
      tool: 'skill_run',
      toolCallId: 'run',
      decision: 'deny',
      source: 'person',
      remembers: ['skill:writer'],
    });
  });

  it('allow-always is asked once per skill and session: not again in the next turn, again for another skill and in another session', async () => {
    const answers: Array<[string, string | undefined]> = [];
    const decide = (request: ApprovalRequest): ApprovalDecision => {
      answers.push([request.sessionId, request.skill]);
      return 'allow-always';
    };
    const sessions = createMemorySessionStore();
    const turn = async (sessionId: string, steps: ScriptedStep[]) => {
      const { model } = createScriptedModel([...steps, { text: 'done' }]);
      const agent = createSkillAgent({
        model,
        repository,
        workspaces,
        sessions,
        loadMode: 'session',
        approval: { skills: 'all', decide },
      });
      return collect(agent.run({ userId: 'u', sessionId, message: 'go' }));
    };
    const load = (skill: string): ScriptedStep => ({
      toolCalls: [{ name: 'skill_load', input: { skill }, id: `load-${skill}` }],
    });
    await turn('one', [load('writer'), runStep('writer', marker('a1'), 'r1'), runStep('writer', marker('a2'), 'r2')]);
    expect(answers).toEqual([['one', 'writer']]);
    expect(existsSync(marker('a1')) && existsSync(marker('a2'))).toBe(true);

    await turn('one', [runStep('writer', marker('a3'), 'r3'), load('reader'), runStep('reader', marker('b1'), 'r4')]);
    expect(existsSync(marker('a3')) && existsSync(marker('b1'))).toBe(true);
    expect(answers).toEqual([
      ['one', 'writer'],
      ['one', 'reader'],
    ]);

    await turn('two', [load('writer'), runStep('writer', marker('c1'), 'r5')]);
    expect(answers.at(-1)).toEqual(['two', 'writer']);

    const stored = await sessions.getSession({ userId: 'u', sessionId: 'one' });
    expect(stored?.state['approval:always:skill:writer']).toBe('1');
    const decisions = stored?.events
      .filter((event) => event.type === 'approval-decision')
      .map((event) => (event.content as { source: string }).source);
    expect(decisions).toEqual(['person', 'remembered', 'remembered', 'person']);
  });

  it('run without decide denies a call needing approval, as unanswered, and says how to answer', async () => {
    const file = marker('unanswered');
    const { model } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'writer' }, id: 'load' }] },
      runStep('writer', file, 'run'),
      { text: 'ok' },
    ]);
    const agent = createSkillAgent({ model, repository, workspaces, approval: { tools: ['skill_run'] } });
    const events = await collect(agent.run({ userId: 'u', sessionId: 's', message: 'write' }));
    expect(existsSync(file)).toBe(false);
    expect((resultOf(events, 'run')?.output as { message: string }).message).toContain(
      "needs a person's approval and none was given (decide failed: SkillAgent.run has no approval.decide",
    );
  });

  it('refuses a malformed approval option, naming the field', () => {
    const { model } = createScriptedModel([]);
    expect(() =>
      createSkillAgent({
        model,
        repository,
        workspaces,
        approval: { tools: 'every' as never, decide: 'yes' as never },
      }),
    ).toThrow(SkillboxConfigError);
    try {
      createSkillAgent({
        model,
        repository,
        workspaces,
        approval: { tools: 'every' as never, decide: 'yes' as never },
      });
    } catch (error) {
      expect((error as SkillboxConfigError).problems).toEqual([
        { option: 'approval.tools', problem: 'must be an array of tool names or "all"; got "every"' },
        {
          option: 'approval.decide',
          problem: 'must be a function (request) => "allow-once" | "allow-always" | "deny"; got "yes"',
        },
      ]);
    }
  });
});

describe('createSkillToolkit with approval and no decide: the AI SDK tool-approval flow', () => {
  async function firstCall(file: string) {
    const toolkit = createSkillToolkit({
      repository,
      workspaces,
      loadMode: 'session',
      approval: { skills: ['writer'] },
    });
    const state = createInMemoryStateView({ [loadedKey('assistant', 'writer')]: '1' });
    const recorded: ApprovalEvent[] = [];
    const context = createSkillCallContext({
      sessionId: 'sdk',
      state,
      onApprovalEvent: (event) => recorded.push(event),
    });
    const prompts: unknown[] = [];
    const call = (messages: ModelMessage[], steps: ScriptedStep[]) => {
      const scripted = createScriptedModel(steps);
      prompts.push(scripted.calls);
      return generateText({
        model: scripted.model,
        tools: toolkit.tools,
        prepareStep: toolkit.prepareStep,
        stopWhen: stepCountIs(5),
        messages,
        ...toolkit.contextOptions(context),
      });
    };
    const user: ModelMessage = { role: 'user', content: 'write' };
    const first = await call([user], [runStep('writer', file, 'run')]);
    return { first, call, user, recorded, state, prompts };
  }

  function approvalRequestOf(content: ReadonlyArray<{ type: string }>): { approvalId: string } {
    const part = content.find((entry) => entry.type === 'tool-approval-request');
    if (part === undefined) throw new Error('no tool-approval-request part');
    return part as unknown as { approvalId: string };
  }

  it('the call stops at a tool-approval-request; approving it runs the script once', async () => {
    const file = marker('sdk-approved');
    const { first, call, user, recorded } = await firstCall(file);
    expect(existsSync(file)).toBe(false);
    const { approvalId } = approvalRequestOf(first.content);
    expect(recorded.map((event) => event.type)).toEqual(['approval-request']);
    expect(recorded[0]?.content).toMatchObject({ skill: 'writer', command: `bash scripts/touch.sh ${file}` });

    const second = await call(
      [
        user,
        ...first.response.messages,
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId, approved: true }] },
      ],
      [{ text: 'written' }],
    );
    expect(existsSync(file)).toBe(true);
    expect(second.text).toBe('written');
    expect(recorded.map((event) => event.type)).toEqual(['approval-request', 'approval-decision']);
    expect(recorded[1]?.content).toMatchObject({ decision: 'allow-once', source: 'ai-sdk-response' });
  });

  it('denying it runs nothing and the model is told the call was denied', async () => {
    const file = marker('sdk-denied');
    const { first, call, user, prompts, recorded } = await firstCall(file);
    const { approvalId } = approvalRequestOf(first.content);
    const second = await call(
      [
        user,
        ...first.response.messages,
        {
          role: 'tool',
          content: [{ type: 'tool-approval-response', approvalId, approved: false, reason: 'not today' }],
        },
      ],
      [{ text: 'understood' }],
    );
    expect(existsSync(file)).toBe(false);
    expect(second.text).toBe('understood');
    // The SDK's own denial reaches the model as the call's result, with the person's reason.
    expect(JSON.stringify(prompts[1])).toContain('not today');
    expect(recorded.map((event) => event.type)).toEqual(['approval-request', 'approval-decision']);
    expect(recorded[1]?.content).toMatchObject({
      requestId: 'approval-run',
      decision: 'deny',
      source: 'ai-sdk-response',
      reason: 'not today',
    });
  });
});

describe('asAiSdkAgent with approval and no decide', () => {
  it('stores the request of the first call and the denial of the next in the session', async () => {
    const file = marker('agent-denied');
    const sessions = createMemorySessionStore();
    const steps: ScriptedStep[] = [
      { toolCalls: [{ name: 'skill_load', input: { skill: 'writer' }, id: 'load' }] },
      runStep('writer', file, 'run'),
      { text: 'fine, I will not' },
    ];
    const { model } = createScriptedModel(steps);
    const agent = createSkillAgent({
      model,
      repository,
      workspaces,
      sessions,
      loadMode: 'session',
      approval: { skills: ['writer'] },
    }).asAiSdkAgent();
    const options = { userId: 'u', sessionId: 'agent' };
    const user: ModelMessage = { role: 'user', content: 'write' };
    const first = await agent.generate({ messages: [user], options });
    const request = first.content.find((part) => part.type === 'tool-approval-request') as
      | { approvalId: string }
      | undefined;
    expect(request).toBeDefined();
    const second = await agent.generate({
      messages: [
        user,
        ...first.response.messages,
        {
          role: 'tool',
          content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: false }],
        },
      ],
      options,
    });
    expect(second.text).toBe('fine, I will not');
    expect(existsSync(file)).toBe(false);
    const stored = await sessions.getSession({ userId: 'u', sessionId: 'agent' });
    expect(
      stored?.events
        .filter((event) => event.type.startsWith('approval-'))
        .map((event) => [
          event.type,
          (event.content as { id?: string; requestId?: string }).id ??
            (event.content as { requestId: string }).requestId,
        ]),
    ).toEqual([
      ['approval-request', 'approval-run'],
      ['approval-decision', 'approval-run'],
    ]);
  });
});
