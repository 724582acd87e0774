import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { SandboxRuntime } from '../../src/runtime/sandbox-runtime.js';
import { createInMemoryStateView } from '../../src/state/in-memory-state-view.js';
import type { ToolContext, ToolDefinition } from '../../src/tools/types.js';
import { createExecutionTools } from '../../src/workspace/tools/execution-tools.js';
import type { ProcessPollResult } from '../../src/workspace/tools/process-result.js';
import type { SkillRunResult } from '../../src/workspace/tools/run-result.js';
import { createWorkspaceManager } from '../../src/workspace/workspace-manager.js';
import { sandboxWorks } from '../support/services.js';

const MiB = 1024 * 1024;

/**
 * The quota walks names, and a file unlinked while a process holds it open has none: a background
 * process kept 100 MiB of the workspace's disk that way under a 20 MiB quota, with no limits_hit.
 * What the workspace's processes hold open (a descriptor, a mapping, the program they run) counts.
 */
describe.runIf(sandboxWorks)('workspace quota: files deleted while held open', () => {
  let root: string;
  let call: (name: string, input: Record<string, unknown>, sessionId: string) => Promise<unknown>;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'skillbox-held-files-'));
    await mkdir(path.join(root, 'skills'), { recursive: true });
    const workspaces = createWorkspaceManager({
      runtime: new SandboxRuntime(),
      repository: await createFsSkillRepository({ roots: [path.join(root, 'skills')] }),
      baseDir: path.join(root, 'workspaces'),
    });
    const tools = new Map(
      createExecutionTools({ backgroundProcesses: true, workspaceQuota: { maxBytes: 20 * MiB }, workspaces }).map(
        (tool) => [tool.name, tool],
      ),
    );
    const context = (sessionId: string): ToolContext => ({
      sessionId,
      agentName: 'agent',
      state: createInMemoryStateView({}),
    });
    call = (name, input, sessionId) => {
      const tool = tools.get(name) as ToolDefinition;
      return tool.execute(tool.inputSchema.parse(input), context(sessionId));
    };
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  const untilExited = async (first: ProcessPollResult, sessionId: string, limitMs = 15_000) => {
    let all = first;
    const deadline = Date.now() + limitMs;
    while (all.status !== 'exited' && Date.now() < deadline) {
      const next = (await call(
        'workspace_poll',
        { process_id: first.process_id, yield_ms: 1000 },
        sessionId,
      )) as ProcessPollResult;
      all = { ...next, stdout: all.stdout + next.stdout, stderr: all.stderr + next.stderr };
    }
    return all;
  };

  it.each([
    [
      'a descriptor',
      'exec 3>"$WORK_DIR/big"; rm "$WORK_DIR/big"; head -c 104857600 /dev/zero >&3; echo held; sleep 60',
    ],
    [
      'a memory mapping whose descriptor was closed',
      `python3 -c "
import mmap, os, time
path = os.environ['WORK_DIR'] + '/big'
file = open(path, 'w+b')
os.unlink(path)
for _ in range(100):
    file.write(b'x' * 1024 * 1024)
file.flush()
view = mmap.mmap(file.fileno(), 0)
file.close()
print('held', flush=True)
time.sleep(60)"`,
    ],
  ])(
    'stops a background process that holds a deleted file through %s',
    async (_, command) => {
      const session = `held-${Math.random().toString(36).slice(2)}`;
      const started = (await call(
        'workspace_exec',
        { command, background: true, yield_ms: 0, timeout: 60 },
        session,
      )) as ProcessPollResult;
      const all = await untilExited(started, session);
      // Stopped while it wrote or once it held the file: either way long before its 60 s were up.
      expect(all.status).toBe('exited');
      expect(all.limits_hit).toEqual(['disk']);
      expect(all.warnings.join('\n')).toMatch(/command stopped: the workspace holds more than 20971520 bytes of disk/);
    },
    30_000,
  );

  it('stops a run that holds a deleted file open while it sleeps', async () => {
    const result = (await call(
      'workspace_exec',
      {
        command: 'exec 3>"$WORK_DIR/big"; rm "$WORK_DIR/big"; head -c 104857600 /dev/zero >&3; sleep 20',
        timeout: 25,
      },
      'held-run',
    )) as SkillRunResult;
    expect(result.limits_hit).toEqual(['disk']);
    expect(result.duration_ms).toBeLessThan(15_000);
  }, 30_000);

  it('leaves a process that holds a small deleted file alone', async () => {
    const session = 'held-small';
    const started = (await call(
      'workspace_exec',
      {
        command: 'exec 3>"$WORK_DIR/small"; rm "$WORK_DIR/small"; head -c 1048576 /dev/zero >&3; sleep 2; echo done',
        background: true,
        yield_ms: 0,
      },
      session,
    )) as ProcessPollResult;
    const all = await untilExited(started, session);
    expect(all.stdout).toContain('done');
    expect(all.limits_hit ?? []).toEqual([]);
  }, 30_000);
});
