import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { createRuntime } from '../../runtime/create-runtime.js';
import { createMemorySessionStore } from '../../sessions/memory-session-store.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';
import type { SkillAgentEvent } from './agent-events.js';
import { createSkillAgent } from './skill-agent.js';
import { createScriptedModel } from './testing/scripted-model.js';

// skill_run and workspace_exec need the skill loaded; in `once` mode the skill's content leaves the
// requests after the one that showed it, yet the model must still be able to run it in that turn.

let scratch: string;
let repository: FsSkillRepository;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-load-mode-run-'));
  const skill = join(scratch, 'skills', 'greeter');
  await mkdir(join(skill, 'scripts'), { recursive: true });
  await writeFile(
    join(skill, 'SKILL.md'),
    '---\nname: greeter\ndescription: Greets people.\n---\nRun `bash scripts/greet.sh NAME`.\n',
  );
  await writeFile(join(skill, 'scripts', 'greet.sh'), 'echo "hello $1"\n');
  repository = await FsSkillRepository.open({ roots: [join(scratch, 'skills')] });
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function collect(events: AsyncIterable<SkillAgentEvent>): Promise<SkillAgentEvent[]> {
  const all: SkillAgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

function results(events: SkillAgentEvent[]): Array<Extract<SkillAgentEvent, { type: 'tool-result' }>> {
  return events.filter(
    (event): event is Extract<SkillAgentEvent, { type: 'tool-result' }> => event.type === 'tool-result',
  );
}

describe('running a skill after loading it, in every load mode', () => {
  for (const loadMode of ['turn', 'once', 'session'] as const) {
    it(`${loadMode}: skill_run and workspace_exec work after skill_load in the same turn`, async () => {
      const { model } = createScriptedModel([
        { toolCalls: [{ name: 'skill_load', input: { skill: 'greeter' }, id: 'load' }] },
        {
          toolCalls: [
            { name: 'skill_run', input: { skill: 'greeter', command: 'bash scripts/greet.sh Ada' }, id: 'run' },
          ],
        },
        {
          toolCalls: [
            { name: 'workspace_exec', input: { command: 'bash skills/greeter/scripts/greet.sh Bo' }, id: 'exec' },
          ],
        },
        { text: 'done' },
      ]);
      const workspaces = createWorkspaceManager({
        runtime: createRuntime({ kind: 'local' }),
        repository,
        baseDir: join(scratch, `ws-${loadMode}`),
      });
      const agent = createSkillAgent({ model, repository, workspaces, loadMode });
      const events = await collect(agent.run({ userId: 'u', sessionId: `s-${loadMode}`, message: 'greet Ada' }));
      const [load, run, exec] = results(events);
      expect(load).toMatchObject({ toolName: 'skill_load', output: 'loaded: greeter' });
      expect(run?.error).toBeUndefined();
      expect(run?.output).toMatchObject({ exit_code: 0, stdout: 'hello Ada\n' });
      expect(exec?.error).toBeUndefined();
      expect(exec?.output).toMatchObject({ exit_code: 0, stdout: 'hello Bo\n' });
    });
  }

  it('once: a skill activated in one turn is not runnable in the next without loading it again', async () => {
    const { model } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'greeter' }, id: 'load' }] },
      { text: 'loaded' },
      {
        toolCalls: [
          { name: 'skill_run', input: { skill: 'greeter', command: 'bash scripts/greet.sh Ada' }, id: 'run' },
        ],
      },
      { text: 'refused' },
    ]);
    const sessions = createMemorySessionStore();
    const workspaces = createWorkspaceManager({
      runtime: createRuntime({ kind: 'local' }),
      repository,
      baseDir: join(scratch, 'ws-once-next'),
    });
    const agent = createSkillAgent({ model, repository, workspaces, sessions, loadMode: 'once' });
    await collect(agent.run({ userId: 'u', sessionId: 'next', message: 'load greeter' }));
    const second = await collect(agent.run({ userId: 'u', sessionId: 'next', message: 'now run it' }));
    expect(results(second)[0]?.error).toMatch(/skill_run requires skill_load first for "greeter"/);
    const stored = await sessions.getSession({ userId: 'u', sessionId: 'next' });
    expect(Object.keys(stored?.state ?? {}).filter((key) => key.includes('greeter'))).toEqual([]);
  });
});
