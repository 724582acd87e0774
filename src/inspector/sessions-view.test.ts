import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, type ModelMessage, stepCountIs } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSkillAgent } from '../integrations/ai-sdk/skill-agent.js';
import { createSkillCallContext } from '../integrations/ai-sdk/skill-call-context.js';
import { createSkillToolkit } from '../integrations/ai-sdk/skill-toolkit.js';
import { createScriptedModel, type ScriptedStep } from '../integrations/ai-sdk/testing/scripted-model.js';
import { FsSkillRepository } from '../repository/fs-skill-repository.js';
import { createRuntime } from '../runtime/create-runtime.js';
import { createMemorySessionStore } from '../sessions/memory-session-store.js';
import { createInMemoryStateView } from '../state/in-memory-state-view.js';
import { loadedKey } from '../state/state-keys.js';
import { createWorkspaceManager } from '../workspace/workspace-manager.js';
import { linkApprovals } from './approval-links.js';
import type { TimelineItem } from './inspector-views.js';
import { describeSession } from './sessions-view.js';

// Sessions recorded by the real agent with the scripted model and the local runtime; the skill's
// script would write a marker, and the approvals decide whether it may.

let scratch: string;
let repository: FsSkillRepository;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-inspector-approvals-'));
  const skill = join(scratch, 'skills', 'writer');
  await mkdir(join(skill, 'scripts'), { recursive: true });
  await writeFile(join(skill, 'SKILL.md'), '---\nname: writer\ndescription: Writes.\n---\nRun `bash scripts/w.sh`.\n');
  await writeFile(join(skill, 'scripts', 'w.sh'), 'echo written\n');
  repository = await FsSkillRepository.open({ roots: [join(scratch, 'skills')] });
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const steps: ScriptedStep[] = [
  { toolCalls: [{ name: 'skill_load', input: { skill: 'writer' }, id: 'load' }] },
  { toolCalls: [{ name: 'skill_run', input: { skill: 'writer', command: 'bash scripts/w.sh' }, id: 'run-1' }] },
  { text: 'done' },
];

function approvals(timeline: TimelineItem[]): TimelineItem[] {
  return timeline.filter((item) => item.kind === 'approval-request' || item.kind === 'approval-decision');
}

describe('approvals in the session timeline', () => {
  it('shows a request the runner stored (tool, skill, input, why) and its answer (decision, by whom), linked', async () => {
    const sessions = createMemorySessionStore();
    const workspaces = createWorkspaceManager({
      runtime: createRuntime({ kind: 'local' }),
      repository,
      baseDir: join(scratch, 'ws-decide'),
    });
    const { model } = createScriptedModel(steps);
    const agent = createSkillAgent({
      model,
      repository,
      workspaces,
      sessions,
      loadMode: 'session',
      approval: { skills: ['writer'], decide: () => 'deny' },
    });
    for await (const _ of agent.run({ userId: 'u', sessionId: 's', message: 'write' }));
    await workspaces.close();

    const view = await describeSession(sessions, { userId: 'u', sessionId: 's' });
    const [request, decision, ...more] = approvals(view?.timeline ?? []);
    expect(more).toEqual([]);
    expect(request).toMatchObject({
      kind: 'approval-request',
      title: 'skill_run of skill writer: bash scripts/w.sh',
      approval: { id: 'skillbox:approval-run-1', toolCallId: 'run-1', answer: 'deny by a person' },
    });
    expect(request?.detail).toContain('why: skill writer needs approval');
    expect(request?.detail).toContain('"command": "bash scripts/w.sh"');
    expect(request?.approval?.waiting).toBeUndefined();
    expect(decision).toMatchObject({
      kind: 'approval-decision',
      title: 'deny by a person',
      approval: { id: 'skillbox:approval-run-1', toolCallId: 'run-1', requestIn: request?.version },
    });
    expect(request?.approval?.answeredIn).toBe(decision?.version);
    // Nothing of the approval is left as an unnamed "other" entry.
    expect(view?.timeline.filter((item) => item.kind === 'other')).toEqual([]);
  });

  it('marks a request nobody answered yet as waiting, and links it once the AI SDK response arrives', async () => {
    const sessions = createMemorySessionStore();
    const workspaces = createWorkspaceManager({
      runtime: createRuntime({ kind: 'local' }),
      repository,
      baseDir: join(scratch, 'ws-sdk'),
    });
    const { model } = createScriptedModel(steps);
    const agent = createSkillAgent({
      model,
      repository,
      workspaces,
      sessions,
      loadMode: 'session',
      approval: { skills: ['writer'] },
    }).asAiSdkAgent();
    const options = { userId: 'u', sessionId: 'sdk' };
    const user: ModelMessage = { role: 'user', content: 'write' };
    const first = await agent.generate({ messages: [user], options });

    const open = await describeSession(sessions, options);
    const waiting = approvals(open?.timeline ?? []);
    expect(waiting.length).toBeGreaterThan(0);
    for (const item of waiting) {
      expect(item.kind).toBe('approval-request');
      expect(item.approval).toMatchObject({ toolCallId: 'run-1', waiting: true });
    }

    const asked = first.content.find((part) => part.type === 'tool-approval-request') as { approvalId: string };
    await agent.generate({
      messages: [
        user,
        ...first.response.messages,
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: asked.approvalId, approved: true }] },
      ],
      options,
    });
    await workspaces.close();
    const answered = await describeSession(sessions, options);
    const items = approvals(answered?.timeline ?? []);
    const requests = items.filter((item) => item.kind === 'approval-request');
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) {
      expect(request.approval?.waiting).toBeUndefined();
      const answer = items.find((item) => item.version === request.approval?.answeredIn);
      expect(answer?.kind).toBe('approval-decision');
      expect(answer?.approval?.id).toBe(request.approval?.id);
      expect(answer?.approval?.requestIn).toBe(request.version);
    }
    expect(
      items.find((item) => item.approval?.id === 'skillbox:approval-run-1' && item.kind === 'approval-decision')?.title,
    ).toBe('allow-once by the application (AI SDK approval response)');
  });

  it("shows the AI SDK's tool-approval parts an application stored with its messages, request linked to response", async () => {
    const workspaces = createWorkspaceManager({
      runtime: createRuntime({ kind: 'local' }),
      repository,
      baseDir: join(scratch, 'ws-toolkit'),
    });
    const toolkit = createSkillToolkit({
      repository,
      workspaces,
      loadMode: 'session',
      approval: { skills: ['writer'] },
    });
    const context = createSkillCallContext({
      sessionId: 'app',
      state: createInMemoryStateView({ [loadedKey('assistant', 'writer')]: '1' }),
    });
    const call = (messages: ModelMessage[], script: ScriptedStep[]) =>
      generateText({
        model: createScriptedModel(script).model,
        tools: toolkit.tools,
        prepareStep: toolkit.prepareStep,
        stopWhen: stepCountIs(5),
        messages,
        ...toolkit.contextOptions(context),
      });
    const user: ModelMessage = { role: 'user', content: 'write' };
    const first = await call([user], [steps[1] as ScriptedStep]);
    // The application keeps the conversation in a session store, as messages.
    const sessions = createMemorySessionStore();
    const key = { userId: 'u', sessionId: 'app' };
    await sessions.createSession(key);
    const store = async (messages: ModelMessage[]) => {
      const session = await sessions.getSession(key);
      await sessions.appendEvents(
        key,
        messages.map((content) => ({ author: content.role, type: 'message', content })),
        { expectedVersion: session?.version ?? 0 },
      );
    };
    await store([user, ...first.response.messages]);
    const waiting = approvals((await describeSession(sessions, key))?.timeline ?? []);
    expect(waiting).toEqual([
      expect.objectContaining({
        kind: 'approval-request',
        title: 'skill_run (the AI SDK asks the application)',
        approval: expect.objectContaining({ toolCallId: 'run-1', waiting: true }),
      }),
    ]);
    expect(waiting[0]?.detail).toContain('"command": "bash scripts/w.sh"');

    const { approvalId } = first.content.find((part) => part.type === 'tool-approval-request') as {
      approvalId: string;
    };
    const response: ModelMessage = {
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId, approved: false, reason: 'not today' }],
    };
    const second = await call([user, ...first.response.messages, response], [{ text: 'understood' }]);
    await store([response, ...second.response.messages]);
    await workspaces.close();
    const [request, answer, ...more] = approvals((await describeSession(sessions, key))?.timeline ?? []);
    expect(more).toEqual([]);
    expect(answer).toMatchObject({
      kind: 'approval-decision',
      title: 'denied by the application (AI SDK approval response)',
      detail: 'reason: not today',
      approval: { id: `ai-sdk:${approvalId}`, requestIn: request?.version },
    });
    expect(request?.approval).toEqual({
      id: `ai-sdk:${approvalId}`,
      toolCallId: 'run-1',
      answeredIn: answer?.version,
      answer: 'denied by the application (AI SDK approval response)',
    });
  });

  it('links across pages: a request shown as waiting is answered by an item that came later', () => {
    const base = { timestamp: 1, author: 'a' };
    const first = linkApprovals([
      { ...base, version: 1, kind: 'approval-request', title: 'skill_run', approval: { id: 'skillbox:x' } },
    ]);
    expect(first[0]?.approval?.waiting).toBe(true);
    const later = linkApprovals([
      ...first,
      {
        ...base,
        version: 2,
        kind: 'approval-decision',
        title: 'allow-once by a person',
        approval: { id: 'skillbox:x' },
      },
    ]);
    expect(later[0]?.approval).toEqual({ id: 'skillbox:x', answeredIn: 2, answer: 'allow-once by a person' });
    expect(later[1]?.approval).toEqual({ id: 'skillbox:x', requestIn: 1 });
  });
});

describe('model requests in the session timeline', () => {
  it("shows each step's request as the runner recorded it: the skills it held, where, and the provider's cached share", async () => {
    const sessions = createMemorySessionStore();
    const { model } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'writer' }, id: 'load' }], inputTokens: 800 },
      { text: 'done', inputTokens: 1000, cachedInputTokens: 600 },
    ]);
    const agent = createSkillAgent({ model, repository, sessions, loadMode: 'session', materialize: 'system' });
    for await (const _ of agent.run({ userId: 'u', sessionId: 'requests', message: 'write' }));

    const view = await describeSession(sessions, { userId: 'u', sessionId: 'requests' });
    const requests = view?.timeline.filter((item) => item.kind === 'model-request') ?? [];
    expect(requests.map((item) => item.title)).toEqual([
      'model request, step 1: no skill loaded; 0 of 800 input tokens from the prompt cache (0%)',
      'model request, step 2: writer in the system message; 600 of 1000 input tokens from the prompt cache (60%)',
    ]);
    // Each sits just before the entries of the message its request produced.
    const timeline = view?.timeline ?? [];
    const second = timeline.indexOf(requests[1] as TimelineItem);
    expect(timeline[second + 1]).toMatchObject({ kind: 'assistant', title: 'done' });
    expect(JSON.parse(requests[1]?.detail ?? '{}')).toMatchObject({ step: 1, materialize: 'system' });
  });
});
