import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { LocalRuntime } from '../runtime/local-runtime.js';
import { createInMemoryStateView } from '../state/in-memory-state-view.js';
import { loadedKey } from '../state/state-keys.js';
import type { ToolDefinition } from '../tools/types.js';
import { createExecutionTools } from './tools/execution-tools.js';
import { createWorkspaceManager } from './workspace-manager.js';

// Each command gets a run folder ($RUN_DIR). One it leaves empty is removed after it, so a long
// session does not pile up folders that every later quota walk visits; one it wrote to stays.
let temporary: string;
beforeEach(async () => {
  temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-run-folders-'));
});
afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

const limits = { timeoutMs: 10_000, maxOutputBytes: 4096 };
const repository = createMemorySkillRepository([{ name: 'probe', description: 'Probe.', body: 'Run things.' }]);

function manager() {
  return createWorkspaceManager({ runtime: new LocalRuntime(), repository, baseDir: path.join(temporary, 'base') });
}

describe('run folders', () => {
  it('removes the run folder of a command that left it empty, and keeps one it wrote to', async () => {
    const workspace = await manager().workspace('folders');
    for (let index = 0; index < 5; index += 1) await workspace.run({ ...limits, command: 'true' });
    expect(await readdir(path.join(workspace.root, 'runs'))).toEqual([]);
    const kept = await workspace.run({ ...limits, command: 'echo hello > "$RUN_DIR/log.txt"' });
    expect(await readdir(path.join(workspace.root, 'runs'))).toEqual([path.basename(kept.runDir)]);
    expect(await readFile(path.join(workspace.root, kept.runDir, 'log.txt'), 'utf8')).toBe('hello\n');
  });

  it('skill_run collects from $RUN_DIR whether the command wrote there or not', async () => {
    const workspaces = manager();
    const [skillRun] = createExecutionTools({ workspaces }) as [ToolDefinition];
    const context = {
      sessionId: 'collect',
      agentName: 'a',
      state: createInMemoryStateView({ [loadedKey('a', 'probe')]: '1' }),
    };
    const call = (command: string) =>
      skillRun.execute(skillRun.inputSchema.parse({ skill: 'probe', command, output_files: ['$RUN_DIR/*'] }), context);
    const empty = (await call('true')) as { exit_code: number; output_files: unknown[] };
    expect(empty.exit_code).toBe(0);
    expect(empty.output_files).toEqual([]);
    const written = (await call('echo 42 > "$RUN_DIR/answer.txt"')) as {
      output_files: Array<{ name: string; content?: string }>;
    };
    expect(written.output_files.map((file) => file.content)).toEqual(['42\n']);
  });

  it('does not remove what a command put in the place of its run folder', async () => {
    const workspace = await manager().workspace('swapped');
    const outside = path.join(temporary, 'outside-empty');
    await mkdir(outside);
    // The command swaps its own run folder for a link to an empty host folder.
    await workspace.run({ ...limits, command: `rmdir "$RUN_DIR" && ln -s '${outside}' "$RUN_DIR"` });
    expect(await readdir(outside)).toEqual([]);
    expect((await readdir(path.join(workspace.root, 'runs'))).length).toBe(1);
  });
});
