import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsSkillRepository } from '../../repository/fs-skill-repository.js';
import { LocalRuntime } from '../../runtime/local-runtime.js';
import { createInMemoryStateView } from '../../state/in-memory-state-view.js';
import { loadedKey } from '../../state/state-keys.js';
import type { ToolContext, ToolDefinition } from '../../tools/types.js';
import { createWorkspaceManager, type WorkspaceManager } from '../workspace-manager.js';
import type { ExecutionToolsOptions } from './execution-options.js';
import { createExecutionTools } from './execution-tools.js';
import type { SkillRunResult } from './run-result.js';

// editor_text, outputs and artifact_prefix of skill_run, on the local runtime (the sandboxed attacks
// are in test/security/skill-run-fields.test.ts).

let temporary: string;
let workspaces: WorkspaceManager;

async function setup(options: Partial<Omit<ExecutionToolsOptions, 'workspaces'>> = {}, artifacts = true) {
  const repository = await createFsSkillRepository({ roots: [path.join(temporary, 'skills')] });
  workspaces = createWorkspaceManager({
    runtime: new LocalRuntime(),
    repository,
    baseDir: path.join(temporary, 'workspaces'),
    ...(artifacts ? {} : { artifacts: false as const }),
  });
  const [skillRun] = createExecutionTools({ workspaces, ...options }) as [ToolDefinition];
  const context: ToolContext = {
    sessionId: 'session-1',
    agentName: 'agent',
    state: createInMemoryStateView({ [loadedKey('agent', 'notes')]: '1' }),
  };
  const run = (input: Record<string, unknown>) =>
    skillRun.execute(skillRun.inputSchema.parse({ skill: 'notes', ...input }), context) as Promise<SkillRunResult>;
  const scope = async () => (await workspaces.workspace(context.sessionId)).artifactScope;
  return { run, skillRun, scope };
}

beforeEach(async () => {
  temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-run-fields-'));
  await mkdir(path.join(temporary, 'skills', 'notes'), { recursive: true });
  await writeFile(
    path.join(temporary, 'skills', 'notes', 'SKILL.md'),
    '---\nname: notes\ndescription: Writes notes for tests.\n---\nRun $EDITOR out/note.txt\n',
  );
});

afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

describe('skill_run editor_text', () => {
  it('writes the text to the file the command opens with $EDITOR or $VISUAL', async () => {
    const { run } = await setup();
    const result = await run({
      command: '$EDITOR out/note.txt && cat out/note.txt && $VISUAL ../../work/draft.md',
      editor_text: 'memo body\nsecond line',
      output_files: ['out/note.txt', 'work/draft.md'],
    });
    expect(result.exit_code).toBe(0);
    expect(result.stdout).toBe('memo body\nsecond line');
    expect(result.output_files.map((file) => [file.name, file.content])).toEqual([
      ['out/note.txt', 'memo body\nsecond line'],
      ['work/draft.md', 'memo body\nsecond line'],
    ]);
  });

  it('works for a program that starts the editor itself, as git commit does', async () => {
    const { run } = await setup();
    const result = await run({
      command:
        'cd ../../work && git init -q repo && cd repo && git -c user.name=t -c user.email=t@t commit -q --allow-empty && git log --format=%B -1',
      editor_text: 'Commit message from the model',
      output_files: [],
    });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('Commit message from the model');
  });

  it('refuses editor_text with env.EDITOR or env.VISUAL, and under command lists, before anything runs', async () => {
    const { run } = await setup();
    await expect(run({ command: 'true', editor_text: 'x', env: { EDITOR: 'vi' } })).rejects.toThrow(
      'editor_text cannot be combined with env.EDITOR',
    );
    await expect(run({ command: 'true', editor_text: 'x', env: { VISUAL: 'vi' } })).rejects.toThrow(
      'editor_text cannot be combined with env.VISUAL',
    );
    const restricted = await setup({ allowedCommands: ['ls'] });
    await expect(restricted.run({ command: 'ls', editor_text: 'x' })).rejects.toThrow(
      'editor_text is not available when command lists',
    );
  });

  it('makes the editor refuse a target in the staged skill copy or outside the workspace', async () => {
    const { run } = await setup();
    const outside = path.join(temporary, 'outside.txt');
    await writeFile(outside, 'untouched');
    const result = await run({
      command: `$EDITOR SKILL.md; echo "skill:$?"; $EDITOR '${outside}'; echo "outside:$?"; $EDITOR ../../../../outside.txt; echo "climb:$?"`,
      editor_text: 'overwritten',
      output_files: [],
    });
    expect(result.stdout).toBe('skill:2\noutside:2\nclimb:2\n');
    expect(result.stderr).toContain('staged skill files are not written by the editor');
    expect(result.stderr).toContain('it is outside the workspace');
    expect(await readFile(outside, 'utf8')).toBe('untouched');
    expect(await readFile(path.join(temporary, 'skills', 'notes', 'SKILL.md'), 'utf8')).toContain('Writes notes');
  });
});

describe('skill_run outputs', () => {
  it('collects by globs, returns metadata only unless inline, and saves under name_template', async () => {
    const { run } = await setup();
    const command = 'printf alpha > out/a.txt; printf beta > out/b.txt; printf gamma > out/c.log';
    const quiet = await run({ command, outputs: { globs: ['out/*.txt'] } });
    expect(quiet.output_files.map((file) => [file.name, file.content, file.size_bytes])).toEqual([
      ['out/a.txt', undefined, 5],
      ['out/b.txt', undefined, 4],
    ]);
    expect(quiet.artifact_files).toBeUndefined();

    const saved = await run({
      command,
      outputs: { globs: ['out/*.txt'], inline: true, save: true, name_template: 'daily-' },
    });
    expect(saved.output_files.map((file) => file.content)).toEqual(['alpha', 'beta']);
    expect(saved.artifact_files).toEqual([
      { name: 'daily-out/a.txt', version: 1, ref: 'artifact://daily-out/a.txt@1' },
      { name: 'daily-out/b.txt', version: 1, ref: 'artifact://daily-out/b.txt@1' },
    ]);
  });

  it('lowers the caps as asked and never raises them past the configured ones', async () => {
    const { run } = await setup({ outputLimits: { maxFileBytes: 8 } });
    const result = await run({
      command: 'printf 0123456789 > out/a.txt; printf x > out/b.txt; printf y > out/c.txt',
      outputs: { globs: ['out/*'], inline: true, max_files: 2, max_file_bytes: 100 },
    });
    expect(result.output_files.map((file) => [file.name, file.content, file.truncated])).toEqual([
      ['out/a.txt', '01234567', true],
      ['out/b.txt', 'x', false],
    ]);
    expect(result.limits_hit).toEqual(expect.arrayContaining(['output_files', 'output_bytes']));
    expect(result.warnings).toContain('outputs.max_file_bytes 100 capped to 8 (the configured limit)');
  });

  it('refuses a bad spec naming the field, before the command runs', async () => {
    const { run } = await setup();
    const marker = 'touch ../../out/ran';
    await expect(run({ command: marker, outputs: { globs: ['out/*'] }, output_files: ['out/*'] })).rejects.toThrow(
      'give output_files or outputs, not both',
    );
    await expect(run({ command: marker, outputs: { globs: ['   '] } })).rejects.toThrow('outputs.globs');
    await expect(run({ command: marker, outputs: { globs: ['out/*'], name_template: '../x' } })).rejects.toThrow(
      'outputs.name_template "../x" refused',
    );
    await expect(run({ command: marker, outputs: { globs: ['out/[z-a]'] } })).rejects.toThrow();
    await expect(run({ command: marker, outputs: { globs: [] } })).rejects.toThrow('outputs.globs: give at least one');
    await expect(run({ command: marker, outputs: { globs: ['out/*'], max_files: 0 } })).rejects.toThrow(
      'outputs.max_files: must be a positive whole number, got 0',
    );
    await expect(run({ command: marker, outputs: { globs: ['out/*'], max_total_bytes: 1.5 } })).rejects.toThrow(
      'outputs.max_total_bytes',
    );
    await expect(run({ command: marker, outputs: { globs: Array(65).fill('out/a') } })).rejects.toThrow(
      'outputs.globs: 65 patterns',
    );
    await expect(run({ command: marker, editor_text: 'x'.repeat(1024 * 1024 + 1) })).rejects.toThrow(
      'editor_text has 1048577 characters',
    );
    const after = await run({ command: 'ls ../../out', output_files: [] });
    expect(after.stdout).toBe('');
  });

  it('says so when outputs.save has no artifact store', async () => {
    const { run } = await setup({}, false);
    const result = await run({ command: 'printf a > out/a.txt', outputs: { globs: ['out/a.txt'], save: true } });
    expect(result.warnings).toContain(
      'outputs.save requested but no artifact store is configured; outputs are not persisted',
    );
  });
});

describe('skill_run artifact_prefix', () => {
  it('prefixes saved artifact names, and says when nothing is saved', async () => {
    const { run } = await setup();
    const result = await run({
      command: 'printf report > out/r.txt',
      output_files: ['out/r.txt'],
      save_as_artifacts: true,
      artifact_prefix: 'q3-',
    });
    expect(result.artifact_files).toEqual([{ name: 'q3-out/r.txt', version: 1, ref: 'artifact://q3-out/r.txt@1' }]);
    const unused = await run({ command: 'true', artifact_prefix: 'q3-', output_files: [] });
    expect(unused.warnings).toContain(
      'artifact_prefix has no effect: nothing is saved without save_as_artifacts or outputs.save',
    );
  });

  it('refuses separators, traversal, references and control characters, naming the field', async () => {
    const { run } = await setup();
    for (const prefix of ['../', 'a/b', 'a\\b', '..', 'x..y', 'artifact://x', 'a\u202eb', 'tab\there']) {
      await expect(
        run({ command: 'true', artifact_prefix: prefix, save_as_artifacts: true, output_files: [] }),
      ).rejects.toThrow(/skill_run: artifact_prefix ".*" refused/s);
    }
  });

  it('documents the new fields in the input schema the model sees', async () => {
    const { skillRun } = await setup();
    const { z } = await import('zod');
    const schema = JSON.stringify(z.toJSONSchema(skillRun.inputSchema));
    for (const field of ['editor_text', 'artifact_prefix', 'outputs', 'name_template', 'max_total_bytes'])
      expect(schema).toContain(`"${field}"`);
    expect(schema).toContain('$EDITOR');
  });
});
