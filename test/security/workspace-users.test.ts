import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SkillAgentEvent } from '../../src/integrations/ai-sdk/agent-events.js';
import { createSkillAgent } from '../../src/integrations/ai-sdk/skill-agent.js';
import { createScriptedModel } from '../../src/integrations/ai-sdk/testing/scripted-model.js';
import { createFsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { SandboxRuntime } from '../../src/runtime/sandbox-runtime.js';
import { createWorkspaceManager } from '../../src/workspace/workspace-manager.js';
import { workspaceSecurityFixture } from './workspace-fixture.js';

// Users who happen to use the same session id (ids chosen by clients, or numbered per user).
describe.runIf(process.platform === 'linux')('workspace security: users sharing a session id', () => {
  let fixture: Awaited<ReturnType<typeof workspaceSecurityFixture>>;
  beforeAll(async () => {
    fixture = await workspaceSecurityFixture();
  });
  afterAll(async () => {
    await fixture.dispose();
  });

  it('never share a workspace or artifacts', async () => {
    const alice = { userId: 'alice', appName: 'chat' };
    const written = await fixture.run(
      { command: 'echo alice secret > out/secret.txt; echo alice secret > work/notes.txt', save_as_artifacts: true },
      'session-1',
      alice,
    );
    expect(written.artifact_files?.map((file) => file.name)).toEqual(['out/secret.txt']);

    const bob = { userId: 'bob', appName: 'chat' };
    const looked = await fixture.exec(
      { command: 'cat out/secret.txt work/notes.txt; ls -R .; true', output_files: ['out/**', 'work/**'] },
      'session-1',
      bob,
    );
    expect(JSON.stringify(looked)).not.toContain('alice secret');
    await expect(
      fixture.run(
        { command: 'cat inputs/secret.txt', inputs: [{ from: 'artifact://out/secret.txt' }] },
        'session-1',
        bob,
      ),
    ).rejects.toThrow(/not found/);
    // Parts with separators in them cannot be shifted into a collision either.
    const shifted = await fixture.exec({ command: 'cat out/secret.txt; true', output_files: ['out/**'] }, 'session-1', {
      userId: 'chat/alice',
    });
    expect(JSON.stringify(shifted)).not.toContain('alice secret');
    const again = await fixture.exec({ command: 'cat out/secret.txt', output_files: [] }, 'session-1', alice);
    expect(again.stdout).toBe('alice secret\n');
  }, 60_000);
});

describe.runIf(process.platform === 'linux')('workspace security: skills hidden by the visibility filter', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'skillbox-ws-hidden-'));
    for (const [name, body] of [
      ['probe', 'Run things.'],
      ['payroll', 'Payroll tools.'],
    ] as const) {
      await mkdir(path.join(root, 'skills', name), { recursive: true });
      await writeFile(
        path.join(root, 'skills', name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: ${body}\n---\n${body}\n`,
      );
    }
    await writeFile(path.join(root, 'skills', 'payroll', 'salaries.csv'), 'name,salary\nceo,HIDDEN-SALARY-9999999\n');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('cannot be staged through a skill:// input by a user who cannot see it', async () => {
    const repository = await createFsSkillRepository({ roots: [path.join(root, 'skills')] });
    // The manager gets the unfiltered repository, as an application sharing one manager between agents would.
    const workspaces = createWorkspaceManager({
      runtime: new SandboxRuntime(),
      repository,
      baseDir: path.join(root, 'workspaces'),
    });
    const { model } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'probe' }, id: 'load' }] },
      {
        toolCalls: [
          {
            name: 'skill_run',
            input: {
              skill: 'probe',
              command: 'cat inputs/salaries.csv',
              inputs: [{ from: 'skill://payroll/salaries.csv' }],
            },
            id: 'run',
          },
          {
            name: 'workspace_exec',
            input: { command: 'ls -R skills; cat skills/payroll/salaries.csv; true' },
            id: 'exec',
          },
        ],
      },
      { text: 'done' },
    ]);
    const agent = createSkillAgent({
      model,
      repository,
      workspaces,
      filter: (summary, context) => summary.name !== 'payroll' || context.roles?.includes('hr') === true,
    });
    const events: SkillAgentEvent[] = [];
    for await (const event of agent.run({
      userId: 'intern',
      sessionId: 's',
      message: 'show salaries',
      context: { userId: 'intern', roles: [] },
    }))
      events.push(event);
    const results = events.filter((event) => event.type === 'tool-result');
    expect(results).toHaveLength(3);
    expect(JSON.stringify(events)).not.toContain('HIDDEN-SALARY');
    const run = results.find((event) => event.type === 'tool-result' && event.toolCallId === 'run');
    expect(run).toMatchObject({ error: expect.stringMatching(/unknown skill "payroll"/) });
  }, 60_000);
});
