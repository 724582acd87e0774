import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsSkillRepository, createWorkspaceManager, LocalRuntime, type SkillRepository } from '../index.js';
import { createSkillAgent } from '../integrations/ai-sdk/skill-agent.js';
import { createRecordingRuntime, createScriptedModel } from './index.js';

// What an application's own test looks like with skillbox/testing: a scripted model drives a real
// agent, a recording runtime around the real local runtime shows which commands reached it.

let scratch: string;
let repository: SkillRepository;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-testing-entry-'));
  const skill = join(scratch, 'skills', 'greeter');
  await mkdir(join(skill, 'scripts'), { recursive: true });
  await writeFile(
    join(skill, 'SKILL.md'),
    '---\nname: greeter\ndescription: Greets people.\n---\nRun `bash scripts/greet.sh NAME`.\n',
  );
  await writeFile(join(skill, 'scripts', 'greet.sh'), 'echo "hello $1"\n');
  repository = await createFsSkillRepository({ roots: [join(scratch, 'skills')] });
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('skillbox/testing helpers', () => {
  it('drive an agent with a scripted model and record the commands its runtime received', async () => {
    const scripted = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'greeter' }, id: 'load' }] },
      {
        toolCalls: [
          { name: 'skill_run', input: { skill: 'greeter', command: 'bash scripts/greet.sh Ada' }, id: 'run' },
        ],
      },
      { text: 'greeted' },
    ]);
    const runtime = createRecordingRuntime(new LocalRuntime());
    const workspaces = createWorkspaceManager({ runtime, repository, baseDir: join(scratch, 'workspaces') });
    const agent = createSkillAgent({ model: scripted.model, repository, workspaces });

    let finalText: string | undefined;
    for await (const event of agent.run({ userId: 'u', sessionId: 's', message: 'greet Ada' })) {
      if (event.type === 'done') finalText = event.text;
    }

    expect(finalText).toBe('greeted');
    expect(scripted.calls).toHaveLength(3);
    expect(runtime.runs).toHaveLength(1);
    const [run] = runtime.runs;
    expect(run?.command.command).toBe('bash scripts/greet.sh Ada');
    expect(run?.command.cwd).toMatch(/skills[/\\]greeter$/);
    expect(run?.result).toMatchObject({ exitCode: 0, stdout: 'hello Ada\n' });
  });

  it('keep the error of a command the inner runtime refused', async () => {
    const runtime = createRecordingRuntime(new LocalRuntime());
    await expect(
      runtime.run({
        command: 'true',
        workspaceRoot: 'relative',
        cwd: 'relative',
        env: {},
        timeoutMs: 1000,
        maxOutputBytes: 1000,
      }),
    ).rejects.toThrow();
    expect(runtime.runs).toHaveLength(1);
    expect(runtime.runs[0]?.error).toBeInstanceOf(Error);
  });
});
