import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineRequestLog, startEngineRequestLog } from '../../../test/support/engine-request-log.js';
import { containerEngineWorks, containerImage, containerSocket } from '../../../test/support/services.js';
import { createFsSkillRepository } from '../../repository/fs-skill-repository.js';
import { type ContainerRuntime, createContainerRuntime } from '../../runtime/container/container-runtime.js';
import { createInMemoryStateView } from '../../state/in-memory-state-view.js';
import { loadedKey } from '../../state/state-keys.js';
import type { ToolContext, ToolDefinition } from '../../tools/types.js';
import { createWorkspaceManager, type WorkspaceManager } from '../workspace-manager.js';
import { createExecutionTools } from './execution-tools.js';
import type { SkillRunResult } from './run-result.js';

/**
 * skill_run on the container runtime, counting the Engine API calls each run makes (through a
 * socket in front of podman's that writes every request line down): staging, the command, output
 * collection and the quota each cost a round trip to the daemon, and an exec about 200 ms.
 */
describe.runIf(containerEngineWorks)('skill_run on the container runtime', () => {
  let temporary: string;
  let log: EngineRequestLog;
  let runtime: ContainerRuntime;
  let workspaces: WorkspaceManager;
  let run: (input: Record<string, unknown>) => Promise<SkillRunResult>;

  beforeAll(async () => {
    temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-container-run-'));
    const scripts = path.join(temporary, 'skills', 'maker', 'scripts');
    await mkdir(scripts, { recursive: true });
    await writeFile(
      path.join(temporary, 'skills', 'maker', 'SKILL.md'),
      '---\nname: maker\ndescription: Makes files for tests.\n---\nRun scripts/make.sh\n',
    );
    await writeFile(path.join(scripts, 'make.sh'), '#!/bin/sh\nprintf "made %s" "$1" > "$OUTPUT_DIR/$1.txt"\n', {
      mode: 0o755,
    });
    for (const name of ['one.py', 'two.py', 'three.py']) await writeFile(path.join(scripts, name), 'print(1)\n');
    log = await startEngineRequestLog(containerSocket);
    runtime = createContainerRuntime({ image: containerImage, socketPath: log.socketPath });
    const repository = await createFsSkillRepository({ roots: [path.join(temporary, 'skills')] });
    workspaces = createWorkspaceManager({ runtime, repository, baseDir: path.join(temporary, 'workspaces') });
    const [skillRun] = createExecutionTools({ workspaces }) as [ToolDefinition];
    const state = createInMemoryStateView();
    state.set(loadedKey('agent', 'maker'), '1');
    const context: ToolContext = { sessionId: 'container-run', agentName: 'agent', state };
    run = (input) => skillRun.execute(skillRun.inputSchema.parse(input), context) as Promise<SkillRunResult>;
  });

  afterAll(async () => {
    await workspaces?.cleanup('container-run');
    runtime?.close();
    await log?.close();
    await rm(temporary, { recursive: true, force: true });
  });

  it('stages, runs, measures and collects in a handful of execs per skill_run', async () => {
    let mark = log.requests.length;
    const first = await run({ skill: 'maker', command: 'scripts/make.sh hello' });
    expect(first.exit_code).toBe(0);
    expect(first.output_files.map((file) => [file.name, file.content])).toEqual([['out/hello.txt', 'made hello']]);
    const firstCounts = log.countsSince(mark);
    mark = log.requests.length;
    const second = await run({ skill: 'maker', command: 'scripts/make.sh again' });
    expect(second.output_files.map((file) => file.name)).toEqual(['out/again.txt']);
    const secondCounts = log.countsSince(mark);
    // On ff82bcd: 23 execs and 5 archive uploads for the first run, 20 and 1 for the second. File
    // calls made together, or while the file helper's exec is on its way, now share an exec, and an
    // upload makes its own staging folder. One more exec kills every process of the user when the
    // daemon removed the command's exec session before it was inspected (the wrapper's own report
    // of its kill could be forged by the command): whether that happens is a race inside the
    // daemon, so it is counted apart and allowed once per run. A run no longer rewrites the
    // workspace's metadata (an upload and an exec each, 17 and 14 execs before).
    expect(firstCounts.archivePuts).toBe(4);
    expect(firstCounts.kills).toBeLessThanOrEqual(1);
    expect(firstCounts.execs - firstCounts.kills).toBeLessThanOrEqual(16);
    expect(secondCounts.archivePuts).toBe(0);
    expect(secondCounts.kills).toBeLessThanOrEqual(1);
    expect(secondCounts.execs - secondCounts.kills).toBeLessThanOrEqual(13);
    if (process.env.SKILLBOX_SHOW_COUNTS) console.log(firstCounts, secondCounts);
  }, 120_000);
});
