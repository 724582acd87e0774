import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeApprovalRequest } from '../../../approvals/approval-text.js';
import { createMemorySkillRepository } from '../../../repository/memory-skill-repository.js';
import { LocalRuntime } from '../../../runtime/local-runtime.js';
import { createInMemoryStateView } from '../../../state/in-memory-state-view.js';
import type { ToolContext, ToolDefinition } from '../../../tools/types.js';
import { createWorkspaceManager } from '../../workspace-manager.js';
import type { ExecutionToolsOptions } from '../execution-options.js';
import { createExecutionTools } from '../execution-tools.js';

const temporary = mkdtempSync(path.join(tmpdir(), 'skillbox-file-tools-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));
let managers = 0;

function toolsFor(options: Omit<ExecutionToolsOptions, 'workspaces'> = {}) {
  managers += 1;
  const workspaces = createWorkspaceManager({
    runtime: new LocalRuntime(),
    repository: createMemorySkillRepository([]),
    baseDir: path.join(temporary, `ws-${managers}`),
  });
  const tools = new Map(
    createExecutionTools({ fileTools: true, ...options, workspaces }).map((tool) => [tool.name, tool]),
  );
  const context: ToolContext = { sessionId: 'session', agentName: 'agent', state: createInMemoryStateView({}) };
  const call = <T = Record<string, unknown>>(name: string, input: Record<string, unknown>): Promise<T> => {
    const tool = tools.get(name) as ToolDefinition;
    return tool.execute(tool.inputSchema.parse(input), context) as Promise<T>;
  };
  const describe = (name: string, input: Record<string, unknown>) => {
    const tool = tools.get(name) as ToolDefinition;
    return tool.describeCall?.(tool.inputSchema.parse(input), context);
  };
  const shell = (command: string) => call('workspace_exec', { command });
  return { tools, workspaces, call, describe, shell, root: async () => (await workspaces.workspace('session')).root };
}

describe('the workspace file tools', () => {
  it('are offered with fileTools: true, after the execution tools, and not otherwise', () => {
    expect([...toolsFor().tools.keys()]).toEqual([
      'skill_run',
      'workspace_exec',
      'workspace_list',
      'workspace_read',
      'workspace_write',
      'workspace_edit',
      'workspace_glob',
      'workspace_grep',
    ]);
    expect([...toolsFor({ fileTools: false }).tools.keys()]).toEqual(['skill_run', 'workspace_exec']);
  });

  it('write, read, edit, list, glob and grep a file as a model would', async () => {
    const { call } = toolsFor();
    expect(
      await call('workspace_write', { path: 'work/notes/plan.md', content: '# Plan\n- first\n- second\n' }),
    ).toEqual({
      path: 'work/notes/plan.md',
      bytes: 24,
      created: true,
    });
    expect(await call('workspace_read', { path: 'work/notes/plan.md' })).toMatchObject({
      content: '     1\t# Plan\n     2\t- first\n     3\t- second',
      total_lines: 3,
      size_bytes: 24,
    });
    expect(await call('workspace_read', { path: 'work/notes/plan.md', offset: 2, limit: 1 })).toMatchObject({
      content: '     2\t- first',
      warnings: ['lines 3-3 not shown: read again with offset 3'],
    });
    const edit = await call('workspace_edit', {
      path: 'work/notes/plan.md',
      old_string: '- second',
      new_string: '- 2nd\n- third',
    });
    expect(edit).toMatchObject({ path: 'work/notes/plan.md', replacements: 1 });
    expect(edit.snippet).toContain('     4\t- third');
    expect(await call('workspace_list', { path: 'work', depth: 2 })).toEqual({
      path: 'work',
      entries: expect.arrayContaining([
        { path: 'work/notes', kind: 'directory' },
        { path: 'work/notes/plan.md', kind: 'file', size_bytes: 29 },
      ]),
      truncated: false,
    });
    expect(await call('workspace_glob', { pattern: '**/*.md' })).toEqual({
      matches: ['work/notes/plan.md'],
      truncated: false,
    });
    expect(await call('workspace_grep', { pattern: '^- (2nd|third)$', path: 'work' })).toEqual({
      matches: [
        { path: 'work/notes/plan.md', line: 3, text: '- 2nd' },
        { path: 'work/notes/plan.md', line: 4, text: '- third' },
      ],
      files_searched: 1,
      truncated: false,
    });
  });

  it('sees what commands wrote, and commands see what the tools wrote', async () => {
    const { call, shell } = toolsFor();
    await shell('mkdir -p out && printf "a,b\\n1,2\\n" > out/table.csv');
    expect(await call('workspace_read', { path: 'out/table.csv' })).toMatchObject({
      content: '     1\ta,b\n     2\t1,2',
    });
    await call('workspace_write', { path: 'work/script.sh', content: 'echo from-the-tool\n' });
    expect(await shell('bash work/script.sh')).toMatchObject({ stdout: 'from-the-tool\n', exit_code: 0 });
  });

  it('reads inputs/<path> as work/inputs/<path> while the root has no inputs of its own', async () => {
    const { call, shell } = toolsFor();
    await shell('mkdir -p work/inputs && echo staged > work/inputs/data.txt');
    expect(await call('workspace_read', { path: 'inputs/data.txt' })).toMatchObject({ path: 'work/inputs/data.txt' });
    await shell('mkdir inputs && echo own > inputs/data.txt');
    expect(await call('workspace_read', { path: 'inputs/data.txt' })).toMatchObject({ path: 'inputs/data.txt' });
  });

  it('refuses with a message the model can act on', async () => {
    const { call, shell } = toolsFor();
    await call('workspace_write', { path: 'work/a.txt', content: 'x = 1\ny = 1\n' });
    await expect(call('workspace_edit', { path: 'work/a.txt', old_string: '= 1', new_string: '= 2' })).rejects.toThrow(
      'occurs 2 times (at lines 1, 2)',
    );
    await expect(
      call('workspace_edit', { path: 'work/a.txt', old_string: 'x = 3', new_string: 'x = 4' }),
    ).rejects.toThrow('The closest lines:\n  1: x = 1');
    await expect(call('workspace_read', { path: 'work/missing.txt' })).rejects.toThrow(
      'work/missing.txt does not exist',
    );
    await expect(call('workspace_read', { path: 'work' })).rejects.toThrow('is a folder; use workspace_list');
    await expect(call('workspace_write', { path: 'work', content: '' })).rejects.toThrow('work is a folder');
    await expect(call('workspace_read', { path: '../outside.txt' })).rejects.toThrow('climbs out of the workspace');
    await expect(call('workspace_read', { path: '/etc/passwd' })).rejects.toThrow('outside the workspace');
    await shell("printf '\\x89PNG\\r\\n\\x1a\\n\\0\\0\\0\\rIHDR' > work/pic.png");
    await expect(call('workspace_read', { path: 'work/pic.png' })).rejects.toThrow('work/pic.png is binary (image/png');
    await expect(call('workspace_grep', { pattern: '(' })).rejects.toThrow('not a valid regular expression');
    expect(await call('workspace_grep', { pattern: '(', fixed_strings: true })).toMatchObject({ matches: [] });
  });

  it('writes through no link: a link to a host file is replaced, the host file stays as it was', async () => {
    const { call, shell, root } = toolsFor();
    const hostFile = path.join(temporary, `host-${managers}.txt`);
    writeFileSync(hostFile, 'host content\n');
    await shell(`ln -s ${hostFile} work/link.txt && ln -s ${path.dirname(hostFile)} work/hostdir`);
    await expect(call('workspace_read', { path: 'work/link.txt' })).rejects.toThrow('leads out of the workspace');
    await expect(
      call('workspace_edit', { path: 'work/link.txt', old_string: 'host', new_string: 'x' }),
    ).rejects.toThrow('leads out of the workspace');
    await expect(
      call('workspace_write', { path: `work/hostdir/${path.basename(hostFile)}`, content: 'x' }),
    ).rejects.toThrow();
    await call('workspace_write', { path: 'work/link.txt', content: 'mine\n' });
    expect(readFileSync(hostFile, 'utf8')).toBe('host content\n');
    expect(readFileSync(path.join(await root(), 'work/link.txt'), 'utf8')).toBe('mine\n');
  });

  it('keeps a write within the workspace quota and a size cap', async () => {
    const { call } = toolsFor({ workspaceQuota: { maxBytes: 64 * 1024 } });
    await expect(call('workspace_write', { path: 'work/big.txt', content: 'x'.repeat(100 * 1024) })).rejects.toThrow(
      'would pass the workspace quota',
    );
    await expect(
      toolsFor().call('workspace_write', { path: 'work/huge.txt', content: 'x'.repeat(3 * 1024 * 1024) }),
    ).rejects.toThrow('at most 2097152 may be written in one call');
  });

  it('shows a person the exact change of a write or an edit', async () => {
    const { call, describe } = toolsFor();
    await call('workspace_write', { path: 'work/c.txt', content: 'one\ntwo\nthree\n' });
    expect(
      await describe('workspace_edit', { path: 'work/c.txt', old_string: 'two', new_string: 'TWO' }),
    ).toMatchObject({
      fileChanges: [
        {
          path: 'work/c.txt',
          diff: '--- a/work/c.txt\n+++ b/work/c.txt\n@@ -1,4 +1,4 @@\n one\n-two\n+TWO\n three\n ',
        },
      ],
    });
    expect(await describe('workspace_write', { path: 'out/new.txt', content: 'hi\n' })).toMatchObject({
      fileChanges: [{ path: 'out/new.txt', diff: expect.stringContaining('--- /dev/null\n+++ b/out/new.txt') }],
    });
  });
});

describe('approving a file change', () => {
  it('shows the person the diff, escaped, instead of the raw input', async () => {
    const { call, describe: describeCall } = toolsFor();
    await call('workspace_write', { path: 'work/c.txt', content: 'one\ntwo\n' });
    const description = await describeCall('workspace_edit', {
      path: 'work/c.txt',
      old_string: 'two',
      new_string: 'tw\u001bo',
    });
    const text = describeApprovalRequest({
      ...(description as NonNullable<typeof description>),
      id: 'r1',
      tool: 'workspace_edit',
      sessionId: 'session',
      agentName: 'agent',
      remembers: ['tool:workspace_edit'],
      input: {},
    });
    expect(text).toContain('  changes work/c.txt:\n    | --- a/work/c.txt\n    | +++ b/work/c.txt');
    expect(text).toContain('    | -two\n    | +tw\\u001Bo');
    expect(text).not.toContain('input:');
  });
});
