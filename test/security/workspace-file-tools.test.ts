import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../../src/repository/memory-skill-repository.js';
import { LocalRuntime } from '../../src/runtime/local-runtime.js';
import { createInMemoryStateView } from '../../src/state/in-memory-state-view.js';
import type { ToolContext, ToolDefinition } from '../../src/tools/types.js';
import type { ExecutionToolsOptions } from '../../src/workspace/tools/execution-options.js';
import { createExecutionTools } from '../../src/workspace/tools/execution-tools.js';
import { createWorkspaceManager } from '../../src/workspace/workspace-manager.js';
import { startFolderFlipper } from './folder-flipper.js';

// Attacks on the workspace file tools (workspace_read, workspace_write, workspace_edit, ...): the
// model (or a script it ran) wants a file tool to read or write outside the workspace, to hang the
// host, or to pass the quota. The tools work through the runtime's WorkspaceFiles, as on every runtime.

const temporary = mkdtempSync(path.join(tmpdir(), 'skillbox-file-tool-attacks-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));
let count = 0;

async function attackerTools(options: Omit<ExecutionToolsOptions, 'workspaces'> = {}) {
  count += 1;
  const workspaces = createWorkspaceManager({
    runtime: new LocalRuntime(),
    repository: createMemorySkillRepository([]),
    baseDir: path.join(temporary, `ws-${count}`),
  });
  const tools = new Map(
    createExecutionTools({ fileTools: true, ...options, workspaces }).map((tool) => [tool.name, tool]),
  );
  const context: ToolContext = { sessionId: 'attacker', agentName: 'agent', state: createInMemoryStateView({}) };
  const call = (name: string, input: Record<string, unknown>) => {
    const tool = tools.get(name) as ToolDefinition;
    return tool.execute(tool.inputSchema.parse(input), context) as Promise<Record<string, unknown>>;
  };
  const root = (await workspaces.workspace('attacker')).root;
  const host = path.join(temporary, `host-${count}`);
  mkdirSync(host);
  writeFileSync(path.join(host, 'secret.txt'), 'host secret\n');
  return { call, root, host };
}

describe('workspace file tools under attack', () => {
  it('a folder flipped with a link to a host folder between check and use: no read or write lands on the host', async () => {
    const { call, root, host } = await attackerTools();
    mkdirSync(path.join(root, 'work', 'real'), { recursive: true });
    writeFileSync(path.join(root, 'work', 'real', 'secret.txt'), 'workspace file\n');
    symlinkSync(host, path.join(root, 'work', 'evil'));
    const flipper = await startFolderFlipper(path.join(root, 'work'), 'real', 'evil');
    const seen = new Set<string>();
    try {
      for (let attempt = 0; attempt < 150; attempt += 1) {
        await call('workspace_write', { path: `work/real/planted-${attempt}.txt`, content: 'planted\n' }).catch(
          () => undefined,
        );
        const read = await call('workspace_read', { path: 'work/real/secret.txt' }).catch((error: Error) => ({
          error: error.message,
        }));
        seen.add(String((read as { content?: string }).content ?? 'refused'));
        await call('workspace_edit', {
          path: 'work/real/secret.txt',
          old_string: 'secret',
          new_string: 'edited',
        }).catch(() => undefined);
      }
    } finally {
      flipper.kill('SIGKILL');
    }
    expect(readdirSync(host)).toEqual(['secret.txt']);
    expect(readFileSync(path.join(host, 'secret.txt'), 'utf8')).toBe('host secret\n');
    for (const content of seen) expect(content).not.toContain('host secret');
  }, 60_000);

  it('a name with control characters is refused before anything is written', async () => {
    const { call, root } = await attackerTools();
    for (const name of ['work/a\nb.txt', 'work/\u001b[31mred.txt', 'work/tab\t.txt'])
      await expect(call('workspace_write', { path: name, content: 'x' })).rejects.toThrow('control character');
    expect(readdirSync(path.join(root, 'work')).filter((name) => name !== '.home' && name !== 'inputs')).toEqual([]);
  });

  it('a FIFO or a device is refused without blocking the host', async () => {
    const { call, root } = await attackerTools();
    execFileSync('mkfifo', [path.join(root, 'work', 'pipe')]);
    symlinkSync('/dev/zero', path.join(root, 'work', 'zero'));
    await expect(call('workspace_read', { path: 'work/pipe' })).rejects.toThrow('not a regular file');
    await expect(call('workspace_read', { path: 'work/zero' })).rejects.toThrow('leads out of the workspace');
    expect(await call('workspace_grep', { pattern: 'x', path: 'work' })).toMatchObject({ files_searched: 0 });
  });

  it('a huge file is read and searched only up to the caps', async () => {
    const { call, root } = await attackerTools();
    const line = `${'a'.repeat(99)}\n`;
    writeFileSync(path.join(root, 'work', 'huge.txt'), line.repeat(60_000)); // 6 MB
    const read = await call('workspace_read', { path: 'work/huge.txt', limit: 2 });
    expect(read.warnings).toEqual(
      expect.arrayContaining([expect.stringContaining('only its first 2097152 bytes were read')]),
    );
    const grep = await call('workspace_grep', { pattern: 'a+', path: 'work', max_matches: 3 });
    expect(grep).toMatchObject({
      truncated: true,
      warnings: [expect.stringContaining('only its first 1048576 bytes')],
    });
    await expect(call('workspace_edit', { path: 'work/huge.txt', old_string: 'aaa', new_string: 'b' })).rejects.toThrow(
      'files over 2097152 bytes are edited with workspace_exec',
    );
  });

  it('a pattern that backtracks without end is stopped, and the host stays responsive meanwhile', async () => {
    const { call, root } = await attackerTools();
    writeFileSync(path.join(root, 'work', 'bait.txt'), `${'a'.repeat(64)}!\n`);
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 100);
    const started = Date.now();
    try {
      await expect(call('workspace_grep', { pattern: '^(a+)+$', path: 'work' })).rejects.toThrow('backtracks too much');
    } finally {
      clearInterval(timer);
    }
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(ticks).toBeGreaterThan(10);
  }, 30_000);

  it('concurrent writes cannot together pass the quota', async () => {
    const { call, root } = await attackerTools({ workspaceQuota: { maxBytes: 200 * 1024 } });
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, index) =>
        call('workspace_write', { path: `work/part-${index}.bin`, content: 'z'.repeat(50 * 1024) }),
      ),
    );
    const written = results.filter((result) => result.status === 'fulfilled').length;
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(4);
    const bytes = readdirSync(path.join(root, 'work'))
      .filter((name) => name.startsWith('part-'))
      .reduce((sum, name) => sum + readFileSync(path.join(root, 'work', name)).length, 0);
    expect(bytes).toBeLessThanOrEqual(200 * 1024);
  });
});
