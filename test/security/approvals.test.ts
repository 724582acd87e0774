import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { generateText, stepCountIs } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalDecision, ApprovalEvent, ApprovalRequest } from '../../src/approvals/approval-types.js';
import type { SkillAgentEvent } from '../../src/integrations/ai-sdk/agent-events.js';
import { createSkillAgent } from '../../src/integrations/ai-sdk/skill-agent.js';
import { createSkillCallContext } from '../../src/integrations/ai-sdk/skill-call-context.js';
import { createSkillToolkit } from '../../src/integrations/ai-sdk/skill-toolkit.js';
import { createScriptedModel, type ScriptedStep } from '../../src/integrations/ai-sdk/testing/scripted-model.js';
import type { FsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { SandboxRuntime } from '../../src/runtime/sandbox-runtime.js';
import { createMemorySessionStore } from '../../src/sessions/memory-session-store.js';
import type { SessionStore } from '../../src/sessions/session-store.js';
import { createInMemoryStateView } from '../../src/state/in-memory-state-view.js';
import { createWorkspaceManager } from '../../src/workspace/workspace-manager.js';
import { sandboxWorks } from '../support/services.js';
import { createMarkingSkills } from './marking-skills.js';

// Attacks on approval, through the AI SDK agent, the real sandbox and real workspaces. A skill's
// script leaves a file named ran-<tag> in the workspace; "did not run" means no such file exists
// anywhere under the workspaces folder.

let root: string;
let repository: FsSkillRepository;
let round = 0;

beforeAll(async () => {
  ({ root, repository } = await createMarkingSkills('skillbox-approval-security-', () => 'ran'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function markersUnder(folder: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (current: string): Promise<void> => {
    for (const entry of await readdir(current, { withFileTypes: true }).catch(() => [])) {
      if (entry.isDirectory()) await walk(join(current, entry.name));
      else if (entry.name.startsWith('ran-')) found.push(entry.name);
    }
  };
  await walk(folder);
  return found.sort();
}

const load = (skill: string): ScriptedStep => ({ toolCalls: [{ name: 'skill_load', input: { skill } }] });
const run = (skill: string, tag: string, extra: Record<string, unknown> = {}): ScriptedStep => ({
  toolCalls: [{ name: 'skill_run', input: { skill, command: `bash scripts/mark.sh ${tag}`, ...extra } }],
});
const exec = (command: string): ScriptedStep => ({ toolCalls: [{ name: 'workspace_exec', input: { command } }] });

/** One agent per test over its own workspaces folder; `answer` plays the person. */
function setup(
  answer: (request: ApprovalRequest) => unknown,
  approval: { tools?: string[]; skills?: string[] | 'all' },
  execution: { backgroundProcesses?: boolean } = {},
) {
  round += 1;
  const baseDir = join(root, `workspaces-${round}`);
  const workspaces = createWorkspaceManager({ runtime: new SandboxRuntime(), repository, baseDir });
  const asked: ApprovalRequest[] = [];
  const sessions: SessionStore = createMemorySessionStore();
  const turn = async (steps: ScriptedStep[], sessionId = 'session', userId = 'user') => {
    const { model } = createScriptedModel([...steps, { text: 'end' }]);
    const agent = createSkillAgent({
      model,
      repository,
      workspaces,
      sessions,
      loadMode: 'session',
      execution,
      approval: {
        ...approval,
        decide: async (request) => {
          asked.push(request);
          return answer(request) as ApprovalDecision;
        },
      },
    });
    const events: SkillAgentEvent[] = [];
    for await (const event of agent.run({ userId, sessionId, message: 'go' })) events.push(event);
    return events.filter((event) => event.type === 'tool-result').map((event) => event.output);
  };
  return { turn, asked, markers: () => markersUnder(baseDir) };
}

describe.runIf(sandboxWorks)('approval security', () => {
  it('a denied call never runs: skill_run, and workspace_exec running the skill script while the skill is loaded', async () => {
    const { turn, asked, markers } = setup(() => 'deny', { skills: ['alpha'] });
    const results = await turn([load('alpha'), run('alpha', 'direct'), exec('bash skills/alpha/scripts/mark.sh exec')]);
    expect(await markers()).toEqual([]);
    expect(asked.map((request) => request.tool)).toEqual(['skill_run', 'workspace_exec']);
    expect(results.slice(1)).toEqual([
      expect.objectContaining({ approval: 'denied' }),
      expect.objectContaining({ approval: 'denied' }),
    ]);
  });

  it('an unanswered request never runs: a throwing decide, an answer that is not a decision, no answer at all', async () => {
    for (const answer of [
      () => {
        throw new Error('the person closed the window');
      },
      () => 'allow',
      () => undefined,
      () => true,
    ]) {
      const { turn, markers } = setup(answer, { tools: ['skill_run', 'workspace_exec'] });
      const results = await turn([load('alpha'), run('alpha', 'x'), exec('echo ran > work/ran-exec')]);
      expect(await markers()).toEqual([]);
      expect(results.slice(1)).toEqual([
        expect.objectContaining({ message: expect.stringContaining("needs a person's approval and none was given") }),
        expect.objectContaining({ message: expect.stringContaining("needs a person's approval and none was given") }),
      ]);
    }
  });

  it('text written to a background shell after a skill was staged is judged like a command: a denied write never reaches the shell', async () => {
    // The shell starts while no listed skill is reachable, so it needs no approval; alpha is then
    // loaded (and its staging refused beside the shell). Writing "run alpha's script" into the old
    // shell would otherwise run it on nobody's approval.
    const { turn, asked, markers } = setup(
      (request) => (request.tool === 'workspace_write_stdin' ? 'deny' : 'allow-once'),
      { skills: ['alpha'] },
      { backgroundProcesses: true },
    );
    const [started] = await turn([
      { toolCalls: [{ name: 'workspace_exec', input: { command: 'bash', background: true } }] },
    ]);
    const processId = (started as { process_id?: string }).process_id;
    expect(processId).toMatch(/^proc_/);
    const results = await turn([
      load('alpha'),
      exec('true'),
      {
        toolCalls: [
          {
            name: 'workspace_write_stdin',
            input: {
              process_id: processId,
              chars: 'bash skills/alpha/scripts/mark.sh stdin',
              submit: true,
              yield_ms: 1500,
            },
          },
        ],
      },
    ]);
    // Staging alpha beside the shell (which was not started beside it) is refused outright now, so
    // the person is asked about the write alone: alpha is loaded, so the shell's text is judged against it.
    expect(results[1]).toEqual(
      expect.objectContaining({ approval: 'denied', message: expect.stringContaining('beside background process') }),
    );
    expect(asked.map((request) => request.tool)).toEqual(['workspace_write_stdin']);
    expect(asked[0]?.command).toBe('bash skills/alpha/scripts/mark.sh stdin\n');
    expect(results.at(-1)).toEqual(expect.objectContaining({ approval: 'denied' }));
    expect(await markers()).toEqual([]);
  });

  it('a background process started before a listed skill was staged cannot run it once an approved call stages it', async () => {
    // The loop is harmless when it starts (no listed skill is reachable, so nobody is asked), and
    // the person approves skill_run of alpha seeing only that call's command. Staging alpha beside
    // the loop let the loop run alpha's script as well, on nobody's approval.
    const { turn, asked, markers } = setup(() => 'allow-once', { skills: ['alpha'] }, { backgroundProcesses: true });
    const loop =
      'while true; do for s in skills/*/scripts/mark.sh; do [ -f "$s" ] && bash "$s" loop; done; sleep 0.1; done';
    const [started] = await turn([
      { toolCalls: [{ name: 'workspace_exec', input: { command: loop, background: true, yield_ms: 0 } }] },
    ]);
    const processId = (started as { process_id?: string }).process_id;
    expect(processId).toMatch(/^proc_/);
    const refused = await turn([load('alpha'), run('alpha', 'direct'), exec('true')]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await markers()).toEqual([]);
    expect(asked).toEqual([]);
    for (const result of refused.slice(1))
      expect(result).toEqual(
        expect.objectContaining({
          approval: 'denied',
          message: expect.stringMatching(
            new RegExp(`stage skill "alpha" beside background process ${processId}.*workspace_kill`),
          ),
        }),
      );
    // With the loop gone, the person is asked and the approved run is the only one that runs alpha.
    await turn([{ toolCalls: [{ name: 'workspace_kill', input: { process_id: processId } }] }, run('alpha', 'direct')]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(asked.map((request) => request.tool)).toEqual(['skill_run']);
    expect(await markers()).toEqual(['ran-direct']);
  });

  it('a background process started while a listed skill was reachable, and approved for it, does not block staging it again', async () => {
    const { turn, asked, markers } = setup(() => 'allow-once', { skills: ['alpha'] }, { backgroundProcesses: true });
    const [started] = await turn([
      load('alpha'),
      { toolCalls: [{ name: 'workspace_exec', input: { command: 'sleep 30', background: true, yield_ms: 0 } }] },
    ]);
    const processId = (started as { process_id?: string } | undefined)?.process_id;
    await turn([run('alpha', 'after')]);
    expect(asked.map((request) => request.tool)).toEqual(['workspace_exec', 'skill_run']);
    expect(asked[1]?.backgroundProcesses).toEqual([
      { id: expect.stringMatching(/^proc_/), command: 'sleep 30', skills: ['alpha'] },
    ]);
    expect(await markers()).toEqual(['ran-after']);
    void processId;
  });

  it('the model cannot approve itself through fields of the tool input', async () => {
    const { turn, asked, markers } = setup(() => 'deny', { skills: ['alpha'] });
    await turn([
      load('alpha'),
      run('alpha', 'forged', {
        approved: true,
        approval: 'allow-always',
        decision: 'allow-always',
        remembers: ['skill:alpha'],
        env: { SKILLBOX_APPROVAL: 'allow-always' },
      }),
    ]);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.remembers).toEqual(['skill:alpha']);
    expect(await markers()).toEqual([]);
  });

  it('"always" for skill A does not approve skill B, directly or through ../B from A\'s copy', async () => {
    const { turn, asked, markers } = setup((request) => (request.skill === 'alpha' ? 'allow-always' : 'deny'), {
      skills: 'all',
    });
    await turn([load('alpha'), run('alpha', 'a1')]);
    expect(await markers()).toEqual(['ran-a1']);
    await turn([
      load('beta'),
      run('beta', 'b1'),
      { toolCalls: [{ name: 'skill_run', input: { skill: 'alpha', command: 'bash ../beta/scripts/mark.sh b2' } }] },
    ]);
    expect(await markers()).toEqual(['ran-a1']);
    // alpha was answered once; beta was asked about, and alpha's later run was asked again because beta is reachable.
    expect(asked.map((request) => [request.skill, request.remembers])).toEqual([
      ['alpha', ['skill:alpha']],
      ['beta', ['skill:beta', 'skill:alpha']],
      ['alpha', ['skill:alpha', 'skill:beta']],
    ]);
  });

  it("one session's approvals do not carry into another session, nor to another user with the same session id", async () => {
    const { turn, asked, markers } = setup(
      (request) => (request.sessionId === 'first' && request.userId === 'user' ? 'allow-always' : 'deny'),
      {
        skills: ['alpha'],
      },
    );
    await turn([load('alpha'), run('alpha', 'first')], 'first');
    await turn([run('alpha', 'first-again')], 'first');
    await turn([load('alpha'), run('alpha', 'second')], 'second');
    await turn([load('alpha'), run('alpha', 'other-user')], 'first', 'someone-else');
    expect(await markers()).toEqual(['ran-first', 'ran-first-again']);
    expect(asked.map((request) => `${request.userId}/${request.sessionId}`)).toEqual([
      'user/first',
      'user/second',
      'someone-else/first',
    ]);
  });
});

describe.runIf(sandboxWorks)('approval security: the AI SDK tool-approval flow', () => {
  it('a call that needs approval only once an earlier call of the same step ran is refused, not run unasked', async () => {
    round += 1;
    const baseDir = join(root, `workspaces-${round}`);
    const workspaces = createWorkspaceManager({ runtime: new SandboxRuntime(), repository, baseDir });
    const toolkit = createSkillToolkit({
      repository,
      workspaces,
      loadMode: 'session',
      approval: { skills: ['alpha'] },
    });
    const recorded: ApprovalEvent[] = [];
    const context = createSkillCallContext({
      sessionId: 'race',
      state: createInMemoryStateView(),
      onApprovalEvent: (event) => recorded.push(event),
    });
    // One step: load alpha, and run its script through workspace_exec. When the SDK checks
    // needsApproval, alpha is not loaded yet, so workspace_exec needs nothing; when it runs, it would
    // stage alpha and run its script.
    const { model } = createScriptedModel([
      {
        toolCalls: [
          { name: 'skill_load', input: { skill: 'alpha' }, id: 'load' },
          { name: 'workspace_exec', input: { command: 'bash skills/alpha/scripts/mark.sh race' }, id: 'exec' },
        ],
      },
      { text: 'end' },
    ]);
    const result = await generateText({
      model,
      tools: toolkit.tools,
      prepareStep: toolkit.prepareStep,
      stopWhen: stepCountIs(3),
      prompt: 'go',
      ...toolkit.contextOptions(context),
    });
    expect(await markersUnder(baseDir)).toEqual([]);
    const exec = result.steps[0]?.content.find((part) => part.type === 'tool-result' && part.toolCallId === 'exec');
    expect(JSON.stringify(exec)).toContain("needs a person's approval and none was given");
    expect(recorded.map((event) => event.type)).toEqual(['approval-request', 'approval-decision']);
  });
});
