import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../../config/config-error.js';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { LocalRuntime } from '../../runtime/local-runtime.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';
import type { SkillAgentEvent } from './agent-events.js';
import { createSkillAgent } from './skill-agent.js';
import { createScriptedModel } from './testing/scripted-model.js';

let scratch: string;
let repository: FsSkillRepository;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-agent-close-'));
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

function script() {
  return createScriptedModel([
    { toolCalls: [{ name: 'skill_load', input: { skill: 'greeter' }, id: 'load' }] },
    {
      toolCalls: [{ name: 'skill_run', input: { skill: 'greeter', command: 'bash scripts/greet.sh Ada' }, id: 'run' }],
    },
    { text: 'done' },
  ]).model;
}

async function turn(agent: ReturnType<typeof createSkillAgent>, sessionId: string): Promise<SkillAgentEvent[]> {
  const events: SkillAgentEvent[] = [];
  for await (const event of agent.run({ userId: 'u', sessionId, message: 'greet Ada' })) events.push(event);
  return events;
}

describe('SkillAgent.close', () => {
  it('removes the workspaces of the manager the agent made, and refuses a later run', async () => {
    const agent = createSkillAgent({ model: script(), repository, runtime: new LocalRuntime() });
    const sessionId = `close-test-${process.pid}-${Date.now()}`;
    const events = await turn(agent, sessionId);
    const run = events.find((event) => event.type === 'tool-result' && event.toolName === 'skill_run');
    expect(JSON.stringify(run)).toContain('hello Ada');
    // The run's own workspace, in the default folder under /tmp that every agent shares.
    const sessionFolders = async () =>
      (await readdir(agent.workspaces!.baseDir)).filter((name) => name.startsWith(`ws_${sessionId}-`));
    expect(await sessionFolders()).toHaveLength(1);

    await agent.close();
    await agent.close();
    expect(await sessionFolders()).toEqual([]);
    await expect(turn(agent, sessionId)).rejects.toThrow(SkillboxConfigError);
    await expect(turn(agent, sessionId)).rejects.toThrow(
      'SkillAgent.run: option "agent" was closed (close() ended its workspaces); create a new agent',
    );
  });

  it('leaves a manager passed as workspaces to its owner', async () => {
    const baseDir = join(scratch, 'given');
    const workspaces = createWorkspaceManager({ runtime: new LocalRuntime(), repository, baseDir });
    const agent = createSkillAgent({ model: script(), repository, workspaces });
    await turn(agent, 'given-test');
    await agent.close();
    expect((await readdir(baseDir)).filter((name) => name.startsWith('ws_'))).toHaveLength(1);
    expect((await workspaces.workspace('given-test')).root).toContain(baseDir);
    await workspaces.close();
    expect((await readdir(baseDir)).filter((name) => name.startsWith('ws_'))).toHaveLength(0);
  });
});
