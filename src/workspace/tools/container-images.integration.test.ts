import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerEngineWorks, containerImage, containerSocket } from '../../../test/support/services.js';
import { main } from '../../cli/main.js';
import { createFsSkillRepository } from '../../repository/fs-skill-repository.js';
import type { SkillRepository } from '../../repository/types.js';
import { createRequirementChecker } from '../../requirements/check-requirements.js';
import { type ContainerRuntime, createContainerRuntime } from '../../runtime/container/container-runtime.js';
import { findExecutable } from '../../runtime/find-executable.js';
import { createInMemoryStateView } from '../../state/in-memory-state-view.js';
import { loadedKey } from '../../state/state-keys.js';
import type { ToolContext, ToolDefinition } from '../../tools/types.js';
import { createWorkspaceManager, type WorkspaceManager } from '../workspace-manager.js';
import { createExecutionTools } from './execution-tools.js';
import type { SkillRunResult } from './run-result.js';

/** The second test image, FROM the first (.ci/skillbox-test-extra.Containerfile, built by .ci/services.sh). */
const extraImage = 'localhost/skillbox-test:extra';
const podman = findExecutable('podman');

function extraImageExists(): boolean {
  if (!containerEngineWorks || podman === undefined) return false;
  try {
    execFileSync(podman, ['image', 'exists', extraImage]);
    return true;
  } catch {
    return false;
  }
}

const skill = (name: string, metadata: string) =>
  `---\nname: ${name}\ndescription: Reports which image it runs in.\n${metadata}---\nRun cat /etc/skillbox-image.\n`;

/**
 * A skill names the image its scripts need (`metadata: { skillbox-image: IMAGE }`): skill_run runs
 * it there, requirements are checked there, and an image the runtime's options do not allow makes
 * the skill unable to run here, with the reason, before anything is staged.
 */
describe.runIf(extraImageExists())('skills naming their image on the container runtime', () => {
  let temporary: string;
  let runtime: ContainerRuntime;
  let repository: SkillRepository;
  let workspaces: WorkspaceManager;
  let run: (input: Record<string, unknown>) => Promise<SkillRunResult>;

  beforeAll(async () => {
    temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-container-images-'));
    const skills = path.join(temporary, 'skills');
    const write = async (name: string, metadata: string) => {
      await mkdir(path.join(skills, name), { recursive: true });
      await writeFile(path.join(skills, name, 'SKILL.md'), skill(name, metadata));
    };
    await write('plain', '');
    await write('extra', `metadata:\n  skillbox-image: ${extraImage}\n  requires-bins: skillbox-extra-tool\n`);
    await write('needs-tool', 'metadata:\n  requires-bins: skillbox-extra-tool\n');
    await write('elsewhere', 'metadata:\n  skillbox-image: localhost/not-allowed:latest\n');
    runtime = createContainerRuntime({
      image: containerImage,
      socketPath: containerSocket,
      allowedImages: [extraImage],
    });
    repository = await createFsSkillRepository({ roots: [skills] });
    workspaces = createWorkspaceManager({ runtime, repository, baseDir: path.join(temporary, 'workspaces') });
    const [skillRun] = createExecutionTools({ workspaces }) as [ToolDefinition];
    const state = createInMemoryStateView();
    for (const name of ['plain', 'extra', 'needs-tool', 'elsewhere']) state.set(loadedKey('agent', name), '1');
    const context: ToolContext = { sessionId: 'container-images', agentName: 'agent', state };
    run = (input) => skillRun.execute(skillRun.inputSchema.parse(input), context) as Promise<SkillRunResult>;
  });

  afterAll(async () => {
    await workspaces?.cleanup('container-images');
    runtime?.close();
    await rm(temporary, { recursive: true, force: true });
  });

  it('runs each skill in its own image, on the same workspace', async () => {
    const extra = await run({
      skill: 'extra',
      command: 'cat /etc/skillbox-image; skillbox-extra-tool; echo x > ../../work/from-extra',
    });
    expect(extra).toMatchObject({ exit_code: 0, stdout: 'extra\nextra-tool ran\n' });
    const plain = await run({
      skill: 'plain',
      command: 'cat /etc/skillbox-image 2>/dev/null || echo default; cat ../../work/from-extra',
    });
    expect(plain).toMatchObject({ exit_code: 0, stdout: 'default\nx\n' });
  }, 120_000);

  it('checks requirements in the image the skill names, and refuses an image the runtime does not allow', async () => {
    const checker = createRequirementChecker({ runtime });
    const check = async (name: string) => checker.checkSkill(await repository.get(name), repository);
    expect(await check('extra')).toMatchObject({ met: true });
    // The same program, but the skill runs in the runtime's image, which lacks it.
    expect(await check('needs-tool')).toMatchObject({ met: false, missingNames: ['skillbox-extra-tool'] });
    expect(await check('elsewhere')).toMatchObject({
      met: false,
      missingNames: ['image localhost/not-allowed:latest (not allowed)'],
    });
    expect((await check('elsewhere')).missing[0]).toMatch(/does not allow it/);
    await expect(run({ skill: 'elsewhere', command: 'true' })).rejects.toThrow(
      /cannot run here; it needs image "localhost\/not-allowed:latest"/,
    );
    // Named directly, the runtime refuses it by field before anything runs.
    const root = (await workspaces.workspace('container-images')).root;
    await expect(
      runtime.run({
        workspaceRoot: root,
        cwd: root,
        env: {},
        timeoutMs: 5000,
        maxOutputBytes: 1024,
        command: 'true',
        image: 'localhost/not-allowed:latest',
      }),
    ).rejects.toMatchObject({ code: 'RUNTIME_COMMAND_INVALID', field: 'image' });
  }, 120_000);

  it('skillbox list shows the image a skill names and why it cannot run there', async () => {
    let stdout = '';
    const io = { stdout: (text: string) => void (stdout += text), stderr: () => undefined, cwd: temporary, env: {} };
    const flags = ['--runtime', 'container', '--image', containerImage, '--engine', containerSocket];
    expect(
      await main(['list', '--root', path.join(temporary, 'skills'), ...flags, '--allow-image', extraImage], io),
    ).toBe(0);
    expect(stdout).toContain(`extra: image: ${extraImage}; bins: skillbox-extra-tool (met)`);
    expect(stdout).toContain(
      'elsewhere: image: localhost/not-allowed:latest (MISSING image localhost/not-allowed:latest (not allowed))',
    );
    // Without --allow-image the extra image is not allowed either.
    stdout = '';
    expect(await main(['list', '--root', path.join(temporary, 'skills'), ...flags], io)).toBe(0);
    expect(stdout).toContain(
      `extra: image: ${extraImage}; bins: skillbox-extra-tool (MISSING image ${extraImage} (not allowed))`,
    );
  }, 120_000);
});
