import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../test/support/services.js';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { SYSTEM_PATH } from '../runtime/find-executable.js';
import { LocalRuntime } from '../runtime/local-runtime.js';
import type { RuntimeCommand, WorkspaceRuntime } from '../runtime/runtime-types.js';
import { SandboxRuntime } from '../runtime/sandbox-runtime.js';
import { createInMemoryStateView } from '../state/in-memory-state-view.js';
import { SkillToolError } from '../tools/errors.js';
import { createExecutionTools } from '../workspace/tools/execution-tools.js';
import { createWorkspaceManager } from '../workspace/workspace-manager.js';
import { createRequirementChecker } from './check-requirements.js';
import { readSkillRequirements } from './skill-requirements.js';

const temporary = mkdtempSync(join(tmpdir(), 'skillbox-requirements-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

// A program on the host's PATH, in a folder the sandbox does not mount (it shows /usr, /bin, /lib...).
const hostBin = join(temporary, 'host-bin');
mkdirSync(hostBin);
writeFileSync(join(hostBin, 'hostonly-tool'), '#!/bin/sh\necho host\n');
chmodSync(join(hostBin, 'hostonly-tool'), 0o755);
const hostPath = `${hostBin}:${SYSTEM_PATH}`;

/** Counts the commands a runtime runs, to see the probe's cache at work. */
function counting(runtime: WorkspaceRuntime): { runtime: WorkspaceRuntime; runs: () => number } {
  let runs = 0;
  return {
    runtime: {
      kind: runtime.kind,
      isolated: runtime.isolated,
      guestPath: (hostPath, root) => runtime.guestPath(hostPath, root),
      files: (root) => runtime.files(root),
      run: (command: RuntimeCommand) => {
        runs += 1;
        return runtime.run(command);
      },
    },
    runs: () => runs,
  };
}

const needsHostOnly = readSkillRequirements({ requires: { bins: ['hostonly-tool', 'sh'] } }).requirements;

describe.runIf(sandboxWorks)('requirements checked where commands run', () => {
  it('a program on the host PATH but not visible in the sandbox counts as missing in the sandbox only', async () => {
    const environment = { PATH: hostPath };
    const local = createRequirementChecker({ runtime: new LocalRuntime(), environment, network: false });
    expect(await local.check(needsHostOnly)).toEqual({ met: true, missing: [], missingNames: [] });
    const sandbox = createRequirementChecker({ runtime: new SandboxRuntime(), environment, network: false });
    expect(await sandbox.check(needsHostOnly)).toEqual({
      met: false,
      missing: ['program "hostonly-tool" (not on PATH in the sandbox runtime)'],
      missingNames: ['hostonly-tool'],
    });
  });

  it('probes each program once per runtime, and the OS inside the runtime', async () => {
    const { runtime, runs } = counting(new SandboxRuntime());
    const checker = createRequirementChecker({ runtime, environment: { PATH: hostPath }, network: false });
    await checker.check(needsHostOnly);
    await checker.check(needsHostOnly);
    expect(runs()).toBe(1);
    const linuxOnly = readSkillRequirements({ requires: { os: 'linux' } }).requirements;
    const macOnly = readSkillRequirements({ requires: { os: ['darwin'] } }).requirements;
    expect((await checker.check(linuxOnly)).met).toBe(true);
    expect((await checker.check(macOnly)).missing).toEqual(['OS darwin (the sandbox runtime runs linux)']);
    expect(runs()).toBe(2);
  });

  it('skill_run in the sandbox refuses a skill whose needs are not met, naming each, and runs one whose needs are', async () => {
    const repository = createMemorySkillRepository([
      {
        name: 'needs-host-tool',
        description: 'Needs a host-only program, a key and the network.',
        body: 'Run hostonly-tool.',
        metadata: { requires: { bins: ['hostonly-tool'], env: ['REPORT_API_KEY'], network: true } },
      },
      {
        name: 'needs-shell',
        description: 'Needs sh, which the sandbox has.',
        body: 'Run sh.',
        metadata: { 'requires-bins': 'sh', 'requires-os': 'linux' },
      },
    ]);
    const workspaces = createWorkspaceManager({
      runtime: new SandboxRuntime(),
      repository,
      baseDir: join(temporary, 'workspaces'),
    });
    const [skillRun] = createExecutionTools({
      workspaces,
      requireSkillLoaded: false,
      allowHostEnv: ['PATH'],
      hostEnv: { PATH: hostPath },
    });
    const context = { sessionId: 'requirements', agentName: 'a', state: createInMemoryStateView() };
    const refused = skillRun!.execute({ skill: 'needs-host-tool', command: 'hostonly-tool' }, context);
    await expect(refused).rejects.toThrow(SkillToolError);
    await expect(refused).rejects.toThrow(
      'skill "needs-host-tool" cannot run here; it needs program "hostonly-tool" (not on PATH in the sandbox runtime); environment variable REPORT_API_KEY (not passed to commands: allowHostEnv); network access (commands run without network: the network option)',
    );
    const ran = (await skillRun!.execute({ skill: 'needs-shell', command: 'echo ok' }, context)) as {
      stdout: string;
      exit_code: number;
    };
    expect(ran.exit_code).toBe(0);
    expect(ran.stdout.trim()).toBe('ok');
  });
});
