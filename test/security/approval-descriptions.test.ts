import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxDescribedFiles } from '../../src/approvals/approval-gate.js';
import { describeApprovalRequest } from '../../src/approvals/approval-text.js';
import type { ApprovalRequest } from '../../src/approvals/approval-types.js';
import type { SkillAgentEvent } from '../../src/integrations/ai-sdk/agent-events.js';
import { createSkillAgent } from '../../src/integrations/ai-sdk/skill-agent.js';
import { createScriptedModel, type ScriptedStep } from '../../src/integrations/ai-sdk/testing/scripted-model.js';
import { FsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { createMemorySkillRepository } from '../../src/repository/memory-skill-repository.js';
import type { SkillRepository } from '../../src/repository/types.js';
import { SandboxRuntime } from '../../src/runtime/sandbox-runtime.js';
import { createWorkspaceManager } from '../../src/workspace/workspace-manager.js';
import { sandboxWorks } from '../support/services.js';

// The approval request of a gated call names the files staging places, listed through the
// repository on every gated call. A skill can be made so that listing is huge, points out of the
// skill, or fails; none of that may make the request unbounded, show host files, or let the call
// run without a person's yes.

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillbox-approval-descriptions-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const steps = (skill: string): ScriptedStep[] => [
  { toolCalls: [{ name: 'skill_load', input: { skill } }] },
  { toolCalls: [{ name: 'skill_run', input: { skill, command: 'echo ran > "$WORK_DIR/ran"' } }] },
  { text: 'end' },
];

/** One turn that loads `skill` and runs a command of it, every request answered `deny`. */
async function gatedRun(repository: SkillRepository, skill: string, baseDir = join(root, `ws-${skill}`)) {
  const workspaces = createWorkspaceManager({ runtime: new SandboxRuntime(), repository, baseDir });
  const asked: ApprovalRequest[] = [];
  const { model } = createScriptedModel(steps(skill));
  const agent = createSkillAgent({
    model,
    repository,
    workspaces,
    approval: {
      skills: [skill],
      decide: async (request) => {
        asked.push(request);
        return 'deny' as const;
      },
    },
  });
  const events: SkillAgentEvent[] = [];
  for await (const event of agent.run({ userId: 'u', sessionId: 's', message: 'go' })) events.push(event);
  const ranFiles = (await readdir(baseDir, { recursive: true }).catch(() => [])).filter((name) =>
    String(name).endsWith('ran'),
  );
  return { asked, events, ranFiles };
}

describe.runIf(sandboxWorks)('approval security: what a request says about staged files', () => {
  it('a skill with 100,000 files gives a bounded request that says how many files it left out', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 100_000; index += 1) files[`data/file-${index}.txt`] = 'x';
    const repository = createMemorySkillRepository([
      { name: 'huge', description: 'Many files.', body: 'Run things.', files },
    ]);
    const started = performance.now();
    const { asked, ranFiles } = await gatedRun(repository, 'huge');
    const elapsedMs = performance.now() - started;
    expect(asked).toHaveLength(1);
    const request = asked[0] as ApprovalRequest;
    expect(request.stagedFiles).toHaveLength(maxDescribedFiles);
    const total = (await repository.listFiles('huge')).length;
    expect(request.stagedFilesLeftOut).toBe(total - maxDescribedFiles);
    expect(JSON.stringify(request).length).toBeLessThan(20_000);
    expect(describeApprovalRequest(request)).toContain(`and ${total - 20} more`);
    expect(ranFiles).toEqual([]);
    // Not a timing test: a bound so loose that only an unbounded description would break it.
    expect(elapsedMs).toBeLessThan(30_000);
  }, 60_000);

  it('names only files inside the skill: links out of it are not listed', async () => {
    const skill = join(root, 'skills', 'linky');
    await mkdir(join(skill, 'scripts'), { recursive: true });
    await writeFile(join(skill, 'SKILL.md'), '---\nname: linky\ndescription: Links out.\n---\nRun.\n');
    await writeFile(join(skill, 'scripts', 'run.sh'), 'echo hi\n');
    await symlink('/etc', join(skill, 'host-etc'));
    await symlink('/etc/hostname', join(skill, 'hostname'));
    await symlink('../..', join(skill, 'up'));
    const repository = await FsSkillRepository.open({ roots: [join(root, 'skills')] });
    const { asked, ranFiles } = await gatedRun(repository, 'linky');
    expect(asked).toHaveLength(1);
    expect([...(asked[0] as ApprovalRequest).stagedFiles].sort()).toEqual([
      'skills/linky/SKILL.md',
      'skills/linky/scripts/run.sh',
    ]);
    expect(ranFiles).toEqual([]);
  }, 60_000);

  it('a listing that fails still asks (naming the whole skill), and a denied call does not run', async () => {
    const base = createMemorySkillRepository([
      { name: 'broken', description: 'Cannot list.', body: 'Run.', files: { 'run.sh': 'echo hi' } },
    ]);
    // The repository as it is, except that listing a skill's files fails.
    const repository = new Proxy(base, {
      get(target, property) {
        if (property === 'listFiles') return async () => Promise.reject(new Error('listing failed'));
        const value = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as SkillRepository;
    const { asked, ranFiles, events } = await gatedRun(repository, 'broken');
    expect(asked).toHaveLength(1);
    expect((asked[0] as ApprovalRequest).stagedFiles).toEqual(['skills/broken/']);
    const result = events.find((event) => event.type === 'tool-result' && event.toolName === 'skill_run');
    expect(JSON.stringify(result)).toContain('denied');
    expect(ranFiles).toEqual([]);
  }, 60_000);

  it('a description that cannot be built refuses the call without asking and without ending the turn', async () => {
    const repository = createMemorySkillRepository([
      { name: 'plain', description: 'Plain.', body: 'Run.', files: { 'run.sh': 'echo hi' } },
    ]);
    // The workspace cannot be opened (its parent is a file), so the skills in it cannot be named.
    const blocked = join(root, 'not-a-folder');
    await writeFile(blocked, 'x');
    const { asked, events } = await gatedRun(repository, 'plain', join(blocked, 'workspaces'));
    expect(asked).toEqual([]);
    const result = events.find((event) => event.type === 'tool-result' && event.toolName === 'skill_run');
    expect(result).toMatchObject({ error: expect.any(String) });
    expect(events.at(-1)).toMatchObject({ type: 'done' });
  }, 60_000);
});
