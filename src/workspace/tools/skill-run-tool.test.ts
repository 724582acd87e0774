import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsSkillRepository } from '../../repository/fs-skill-repository.js';
import { LocalRuntime } from '../../runtime/local-runtime.js';
import { createInMemoryStateView } from '../../state/in-memory-state-view.js';
import { loadedKey } from '../../state/state-keys.js';
import { SkillToolError } from '../../tools/errors.js';
import type { ToolContext, ToolDefinition } from '../../tools/types.js';
import { createWorkspaceManager, type WorkspaceManager } from '../workspace-manager.js';
import { createExecutionTools } from './execution-tools.js';
import type { SkillRunResult } from './run-result.js';
import { emptyOutputsDroppedWarning } from './run-result.js';

const examples = path.resolve('examples/skills');
const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

let temporary: string;
let workspaces: WorkspaceManager;

async function setup(options: Parameters<typeof createExecutionTools>[0] extends infer O ? Partial<O> : never = {}) {
  const repository = await createFsSkillRepository({ roots: [examples, path.join(temporary, 'skills')] });
  workspaces = createWorkspaceManager({
    runtime: new LocalRuntime(),
    repository,
    baseDir: path.join(temporary, 'workspaces'),
  });
  const [skillRun, workspaceExec] = createExecutionTools({ workspaces, ...options }) as [
    ToolDefinition,
    ToolDefinition,
  ];
  const state = createInMemoryStateView();
  const context: ToolContext = { sessionId: 'session-1', agentName: 'agent', state };
  const load = (skill: string) => state.set(loadedKey('agent', skill), '1');
  const run = (input: Record<string, unknown>, ctx: ToolContext = context) =>
    skillRun.execute(skillRun.inputSchema.parse(input), ctx) as Promise<SkillRunResult>;
  const exec = (input: Record<string, unknown>, ctx: ToolContext = context) =>
    workspaceExec.execute(workspaceExec.inputSchema.parse(input), ctx) as Promise<SkillRunResult>;
  return { run, exec, load, context, state, skillRun, workspaceExec };
}

beforeEach(async () => {
  temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-run-'));
  await mkdir(path.join(temporary, 'skills', 'maker', 'scripts'), { recursive: true });
  await writeFile(
    path.join(temporary, 'skills', 'maker', 'SKILL.md'),
    '---\nname: maker\ndescription: Makes files for tests.\n---\nRun scripts/make.sh\n',
  );
  await writeFile(
    path.join(temporary, 'skills', 'maker', 'scripts', 'make.sh'),
    '#!/bin/sh\nprintf "made %s" "$1" > "$OUTPUT_DIR/$1.txt"\n',
    { mode: 0o755 },
  );
});

afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

describe('skill_run', () => {
  it('runs a skill script in its working copy and returns the file it wrote under out/', async () => {
    const { run, load } = await setup();
    load('python-math');
    const result = await run({ skill: 'python-math', command: 'python3 scripts/fib.py 10 > out/fib.txt' });
    expect(result.exit_code).toBe(0);
    expect(result.timed_out).toBe(false);
    expect(result.output_files.map((file) => file.name)).toEqual(['out/fib.txt']);
    const file = result.output_files[0]!;
    expect(file.content?.split(/\s+/).filter(Boolean).slice(0, 5)).toEqual(['0', '1', '1', '2', '3']);
    expect(file.mime_type).toBe('text/plain; charset=utf-8');
    expect(file.ref).toBe('workspace://out/fib.txt');
    expect(result.primary_output?.name).toBe('out/fib.txt');
    expect(typeof result.duration_ms).toBe('number');
  });

  it('sets the workspace variables, the skill PATH, and passes no host variable unless allowed', async () => {
    process.env.SKILLBOX_TEST_SECRET = 'hidden';
    process.env.SKILLBOX_TEST_ALLOWED = 'shown';
    try {
      const { run, load } = await setup({ allowHostEnv: ['SKILLBOX_TEST_ALLOWED'] });
      load('maker');
      const result = await run({ skill: 'maker', command: 'env | sort', output_files: [] });
      const env = Object.fromEntries(
        result.stdout
          .trim()
          .split('\n')
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      const root = env.WORKSPACE_DIR!;
      expect(path.basename(root)).toMatch(/^ws_session-1-[0-9a-f]{32}_\d+$/);
      expect(env.SKILLS_DIR).toBe(`${root}/skills`);
      expect(env.WORK_DIR).toBe(`${root}/work`);
      expect(env.OUTPUT_DIR).toBe(`${root}/out`);
      expect(env.RUN_DIR).toMatch(new RegExp(`^${root}/runs/run_\\d{8}T\\d{6}\\.\\d{3}`));
      expect(env.SKILL_NAME).toBe('maker');
      expect(env.PATH!.split(':')[0]).toBe(`${root}/skills/maker/bin`);
      expect(env.SKILLBOX_TEST_SECRET).toBeUndefined();
      expect(env.SKILLBOX_TEST_ALLOWED).toBe('shown');
      expect(env.HOME).toBe(`${root}/work/.home`);
    } finally {
      delete process.env.SKILLBOX_TEST_SECRET;
      delete process.env.SKILLBOX_TEST_ALLOWED;
    }
  });

  it('refuses a skill that was not loaded first, and creates no workspace', async () => {
    const { run } = await setup();
    await expect(run({ skill: 'maker', command: 'true' })).rejects.toThrow(
      /skill_run requires skill_load first for "maker": call skill_load/,
    );
    await expect(readdir(path.join(temporary, 'workspaces'))).rejects.toThrow();
  });

  it('runs without skill_load when requireSkillLoaded is off, and names unknown skills', async () => {
    const { run } = await setup({ requireSkillLoaded: false });
    expect((await run({ skill: 'maker', command: 'true' })).exit_code).toBe(0);
    await expect(run({ skill: 'nope', command: 'true' })).rejects.toThrow(/unknown skill "nope"; call skill_list/);
  });

  it('refuses a cwd that leaves the workspace and accepts $WORK_DIR and relative climbs that stay inside', async () => {
    const { run, load } = await setup();
    load('maker');
    await expect(run({ skill: 'maker', command: 'pwd', cwd: '../../..' })).rejects.toThrow(SkillToolError);
    await expect(run({ skill: 'maker', command: 'pwd', cwd: '/etc' })).rejects.toThrow(/outside the workspace/);
    const work = await run({ skill: 'maker', command: 'pwd', cwd: '$WORK_DIR' });
    expect(work.stdout.trim()).toMatch(/\/work$/);
    const climbed = await run({ skill: 'maker', command: 'pwd', cwd: '../../out' });
    expect(climbed.stdout.trim()).toMatch(/\/out$/);
  });

  it('refuses loader-injection variables and bad names before anything runs', async () => {
    const { run, load } = await setup();
    load('maker');
    await expect(run({ skill: 'maker', command: 'touch out/ran', env: { LD_PRELOAD: '/tmp/x.so' } })).rejects.toThrow(
      /LD_PRELOAD/,
    );
    await expect(run({ skill: 'maker', command: 'touch out/ran', env: { 'BAD-NAME': 'x' } })).rejects.toThrow(
      /BAD-NAME/,
    );
    await expect(run({ skill: 'maker', command: 'touch out/ran', env: { BASH_ENV: 'x' } })).rejects.toThrow(/BASH_ENV/);
    expect((await run({ skill: 'maker', command: 'echo "$GREETING"', env: { GREETING: 'hi' } })).stdout).toBe('hi\n');
  });

  it("drops empty output files of a failed run with the seeds' warning", async () => {
    const { run, load } = await setup();
    load('maker');
    const result = await run({
      skill: 'maker',
      command: 'no-such-program > out/result.txt',
      output_files: ['out/*.txt'],
    });
    expect(result.exit_code).not.toBe(0);
    expect(result.output_files).toEqual([]);
    expect(result.warnings).toContain(emptyOutputsDroppedWarning);
  });

  it('never inlines a binary file, sniffs its type, and saves it intact as versioned artifacts', async () => {
    const { run, load, context } = await setup();
    load('maker');
    await writeFile(path.join(temporary, 'image.bin'), png);
    const command = `cp ${path.join(temporary, 'image.bin')} out/picture.dat && printf 'hello' > out/note.txt`;
    const first = await run({ skill: 'maker', command, output_files: ['$OUTPUT_DIR/*'], save_as_artifacts: true });
    const picture = first.output_files.find((file) => file.name === 'out/picture.dat')!;
    expect(picture.mime_type).toBe('image/png');
    expect(picture.content).toBeUndefined();
    expect(picture.size_bytes).toBe(png.length);
    expect(first.artifact_files).toEqual([
      { name: 'out/note.txt', version: 1, ref: 'artifact://out/note.txt@1' },
      { name: 'out/picture.dat', version: 1, ref: 'artifact://out/picture.dat@1' },
    ]);
    const second = await run({ skill: 'maker', command, output_files: ['out/picture.dat'], save_as_artifacts: true });
    expect(second.artifact_files).toEqual([
      { name: 'out/picture.dat', version: 2, ref: 'artifact://out/picture.dat@2' },
    ]);
    const stored = await workspaces.artifacts!.load(
      { scope: (await workspaces.workspace(context.sessionId)).artifactScope, name: 'out/picture.dat' },
      2,
    );
    expect(Buffer.compare(stored.data, png)).toBe(0);
    expect(stored.mimeType).toBe('image/png');
  });

  it('sends an inlined file to the model once, not again under primary_output', async () => {
    const { run, load } = await setup();
    load('maker');
    // A 9.7 KB report: its text used to appear in output_files and again in primary_output.
    const line = 'quarterly figure 0123456789 abcdefghijklmnopqrstuvwxyz\n';
    const result = await run({
      skill: 'maker',
      command: `for i in $(seq 1 180); do printf '${line.trim()}\\n'; done > out/report.txt`,
    });
    const text = result.output_files[0]?.content ?? '';
    expect(text.length).toBe(180 * line.length);
    expect(result.primary_output).toEqual({
      name: 'out/report.txt',
      mime_type: 'text/plain; charset=utf-8',
      size_bytes: text.length,
      truncated: false,
      ref: 'workspace://out/report.txt',
    });
    // What the AI SDK and the MCP server send is this object as JSON.
    const sent = JSON.stringify(result);
    expect(sent.split('quarterly figure').length - 1).toBe(180);
    expect(sent.length).toBeLessThan(text.length + 2048);
  });

  it('omits inline content on request but keeps names, sizes and refs', async () => {
    const { run, load } = await setup();
    load('maker');
    const result = await run({ skill: 'maker', command: 'sh scripts/make.sh a', omit_inline_content: true });
    expect(result.output_files).toEqual([
      {
        name: 'out/a.txt',
        mime_type: 'text/plain; charset=utf-8',
        size_bytes: 6,
        truncated: false,
        ref: 'workspace://out/a.txt',
      },
    ]);
    expect(result.primary_output).toMatchObject({ name: 'out/a.txt', ref: 'workspace://out/a.txt' });
  });

  it('does not follow an output link that leads out of the workspace', async () => {
    const { run, load } = await setup();
    load('maker');
    const secret = path.join(temporary, 'secret.txt');
    await writeFile(secret, 'top secret');
    const result = await run({
      skill: 'maker',
      command: `ln -s ${secret} out/leak.txt && ln -s ${temporary} out/dir`,
      output_files: ['out/**', `${temporary}/secret.txt`, '../../../secret.txt'],
    });
    expect(result.output_files).toEqual([]);
    expect(JSON.stringify(result)).not.toContain('top secret');
    expect(result.warnings.join('\n')).toMatch(/leads out of the workspace/);
  });

  it('collects by escapes, nested and slash-spanning braces, POSIX classes and a trailing slash, as written', async () => {
    const { run, load } = await setup();
    load('maker');
    const command =
      "mkdir -p out/d/e out/b 'out/x*y' && touch 'out/a*b' out/axb out/7.txt out/q.txt out/b/c.txt out/d/e/f.txt 'out/x*y/z.txt'";
    const collect = async (pattern: string) =>
      (await run({ skill: 'maker', command, output_files: [pattern] })).output_files.map((file) => file.name);
    expect(await collect('out/a\\*b')).toEqual(['out/a*b']);
    expect(await collect('out/{axb,{7,q}.txt}')).toEqual(['out/7.txt', 'out/axb', 'out/q.txt']);
    expect(await collect('$OUTPUT_DIR/{axb,b/c.txt}')).toEqual(['out/axb', 'out/b/c.txt']);
    expect(await collect('out/[[:digit:]].txt')).toEqual(['out/7.txt']);
    expect(await collect('out/d/')).toEqual(['out/d/e/f.txt']);
    expect(await collect('out/*/')).toEqual(['out/b/c.txt', 'out/d/e/f.txt', 'out/x*y/z.txt']);
    // A folder whose name holds glob syntax, reached through the cwd, is that folder.
    expect(
      (await run({ skill: 'maker', command, cwd: '$OUTPUT_DIR/x*y', output_files: ['*.txt'] })).output_files.map(
        (file) => file.name,
      ),
    ).toEqual(['out/x*y/z.txt']);
    await expect(run({ skill: 'maker', command, output_files: ['out/*/../*.txt'] })).resolves.toMatchObject({
      warnings: expect.arrayContaining([expect.stringMatching(/".." after a wildcard is not supported/)]),
    });
  });

  it('returns only what this run wrote under out/, at most 20 files, saying how many more there were', async () => {
    const { run, load } = await setup();
    load('maker');
    await run({ skill: 'maker', command: 'echo old > out/old.txt' });
    const second = await run({ skill: 'maker', command: 'echo new > out/new.txt' });
    expect(second.output_files.map((file) => file.name)).toEqual(['out/new.txt']);
    const many = await run({ skill: 'maker', command: 'for i in $(seq 10 34); do echo $i > out/m$i.txt; done' });
    expect(many.output_files.map((file) => file.name)).toEqual(
      Array.from({ length: 20 }, (_, index) => `out/m${index + 10}.txt`),
    );
    expect(many.warnings.join('\n')).toMatch(/25 files written under out\/; the first 20 are returned/);
    expect(many.limits_hit).toBeUndefined();
  });

  it('puts back a workspace folder a command removed before the next run', async () => {
    const { run, load } = await setup();
    load('maker');
    expect(
      (await run({ skill: 'maker', command: 'rm -rf "$OUTPUT_DIR" "$WORK_DIR"', output_files: [] })).exit_code,
    ).toBe(0);
    const next = await run({ skill: 'maker', command: 'echo back > out/back.txt && test -d "$WORK_DIR/inputs"' });
    expect(next.exit_code).toBe(0);
    expect(next.output_files.map((file) => file.content)).toEqual(['back\n']);
  });

  it('caps the number of collected files and says so with limits_hit', async () => {
    const { run, load } = await setup({ outputLimits: { maxFiles: 3 } });
    load('maker');
    const result = await run({
      skill: 'maker',
      command: 'for i in 1 2 3 4 5; do echo $i > out/f$i.txt; done',
      output_files: ['out/*.txt'],
    });
    expect(result.output_files.map((file) => file.name)).toEqual(['out/f1.txt', 'out/f2.txt', 'out/f3.txt']);
    expect(result.limits_hit).toEqual(['output_files']);
  });

  it('sets limits_hit when the inline total drops or cuts a file', async () => {
    const { run, load } = await setup({ inlineLimits: { fileBytes: 8, totalBytes: 10 } });
    load('maker');
    const result = await run({
      skill: 'maker',
      command: 'printf 12345678 > out/a.txt; printf abcdef > out/b.txt; printf xyz > out/c.txt',
      output_files: ['out/*.txt'],
    });
    expect(result.output_files.map((file) => [file.content, file.truncated])).toEqual([
      ['12345678', false],
      ['ab', true],
      [undefined, false],
    ]);
    expect(result.limits_hit).toEqual(['inline_bytes']);
    expect(result.warnings.join('\n')).toMatch(/inline content stopped at 10 bytes/);
    const { run: runWide, load: loadWide } = await setup({ inlineLimits: { fileBytes: 4 } });
    loadWide('maker');
    expect(
      (await runWide({ skill: 'maker', command: 'printf 123456 > out/d.txt', output_files: ['out/d.txt'] })).limits_hit,
    ).toBeUndefined();
  });

  it('inlines text only up to the per-file cap, cutting on a character boundary', async () => {
    const { run, load } = await setup({ inlineLimits: { fileBytes: 5 } });
    load('maker');
    const result = await run({ skill: 'maker', command: "printf 'abcdé' > out/t.txt", output_files: ['out/t.txt'] });
    expect(result.output_files[0]).toMatchObject({ content: 'abcd', truncated: true, size_bytes: 6 });
    expect(result.primary_output).toBeUndefined();
  });

  it('stages inputs from the workspace, a skill and an artifact, and refuses host paths and climbing destinations', async () => {
    const { run, load } = await setup();
    load('maker');
    await run({
      skill: 'maker',
      command: 'echo data > work/data.txt && echo v1 > out/art.txt',
      output_files: ['out/art.txt'],
      save_as_artifacts: true,
    });
    const result = await run({
      skill: 'maker',
      command: 'cat inputs/data.txt inputs/make.sh inputs/art.txt | wc -l',
      inputs: [
        { from: 'workspace://work/data.txt' },
        { from: 'skill://maker/scripts/make.sh' },
        { from: 'artifact://out/art.txt@1' },
      ],
      output_files: [],
    });
    expect(result.stdout.trim()).toBe('4');
    await expect(run({ skill: 'maker', command: 'true', inputs: [{ from: '/etc/hostname' }] })).rejects.toThrow(
      /host paths are not allowed/,
    );
    await expect(
      run({ skill: 'maker', command: 'true', inputs: [{ from: 'workspace://work/data.txt', to: '../escape.txt' }] }),
    ).rejects.toThrow(/climbs out/);
    await expect(readFile(path.join(temporary, 'workspaces', 'escape.txt'))).rejects.toThrow();
  });

  it('returns files this run wrote with old times (cp -p, tar -x) and none it left untouched', async () => {
    const { run, load } = await setup();
    load('maker');
    const first = await run({ skill: 'maker', command: 'echo kept > out/kept.txt && echo v1 > out/rewritten.txt' });
    expect(first.output_files.map((file) => file.name)).toEqual(['out/kept.txt', 'out/rewritten.txt']);
    const second = await run({
      skill: 'maker',
      command: [
        'mkdir -p work/src && echo copied > work/src/copied.txt && echo packed > work/src/packed.txt && echo v2-longer > work/src/rewritten.txt',
        'touch -d 2001-01-01 work/src/*',
        'cp -p work/src/copied.txt work/src/rewritten.txt out/',
        'tar -cf work/p.tar -C work/src packed.txt && tar -xf work/p.tar -C out',
      ].join(' && '),
    });
    expect(second.exit_code).toBe(0);
    expect(second.output_files.map((file) => file.name)).toEqual([
      'out/copied.txt',
      'out/packed.txt',
      'out/rewritten.txt',
    ]);
  });

  it('refuses a maximum timeout Node cannot set, and caps a call asking for more than the maximum', async () => {
    const repository = await createFsSkillRepository({ roots: [examples] });
    const manager = createWorkspaceManager({
      runtime: new LocalRuntime(),
      repository,
      baseDir: path.join(temporary, 'workspaces'),
    });
    expect(() => createExecutionTools({ workspaces: manager, maxTimeoutSeconds: 3_000_000 })).toThrow(
      /maxTimeoutSeconds.*at most 2147483 s/,
    );
    expect(() => createExecutionTools({ workspaces: manager, defaultTimeoutSeconds: 3_000_000 })).toThrow(
      /defaultTimeoutSeconds.*at most 2147483 s/,
    );
    expect(() =>
      createExecutionTools({
        workspaces: manager,
        maxOutputBytes: 0,
        workspaceQuota: { maxFiles: -1 },
        hostInputs: 'yes' as never,
      }),
    ).toThrow(
      'createExecutionTools: 3 invalid options:\n' +
        '  - "hostInputs" must be true, false or a list of host folders; got "yes"\n' +
        '  - "maxOutputBytes" must be a positive number; got 0\n' +
        '  - "workspaceQuota.maxFiles" must be a positive number (or Infinity to turn the limit off); got -1',
    );
    const { run, load } = await setup({ maxTimeoutSeconds: 2_147_483 });
    load('maker');
    const result = await run({ skill: 'maker', command: 'echo done', timeout: 3_000_000, output_files: [] });
    expect(result.timed_out).toBe(false);
    expect(result.stdout).toBe('done\n');
    expect(result.warnings).toContain('timeout 3000000s capped to 2147483s');
  });

  it('refuses an invalid output glob before anything runs', async () => {
    const { run, load } = await setup();
    load('maker');
    await expect(
      run({ skill: 'maker', command: 'echo ran > out/ran.txt', output_files: ['out/*.txt', 'out/[z-a]'] }),
    ).rejects.toThrow(SkillToolError);
    await expect(
      run({ skill: 'maker', command: 'echo ran > out/ran.txt', output_files: ['out/[z-a]'] }),
    ).rejects.toThrow(/out\/\[z-a\].*not a valid glob/);
    const root = (await workspaces.workspace('session-1')).root;
    await expect(readFile(path.join(root, 'out', 'ran.txt'))).rejects.toThrow();
  });

  it('with an allow list runs argv without a shell and refuses other programs and shell syntax', async () => {
    const { run, load, skillRun } = await setup({ allowedCommands: ['echo', 'wc'] });
    load('maker');
    expect(skillRun.description).toContain('Allowed commands: echo, wc');
    expect((await run({ skill: 'maker', command: 'echo "a b" $HOME' })).stdout).toBe('a b $HOME\n');
    await expect(run({ skill: 'maker', command: 'cat /etc/passwd' })).rejects.toThrow(
      /"cat" is not in allowedCommands/,
    );
    await expect(run({ skill: 'maker', command: 'echo hi; rm -rf out' })).rejects.toThrow(/shell metacharacter ";"/);
  });
});

describe('workspace_exec', () => {
  it('stages the loaded skills before running in the workspace root', async () => {
    const { exec, load } = await setup();
    load('maker');
    load('python-math');
    const result = await exec({
      command: 'ls skills && bash skills/maker/scripts/make.sh z',
      output_files: ['out/z.txt'],
    });
    expect(result.stdout.split('\n')).toEqual(expect.arrayContaining(['maker', 'python-math']));
    expect(result.output_files[0]?.content).toBe('made z');
    await expect(exec({ command: 'pwd', cwd: '../' })).rejects.toThrow(/climbs out/);
  });
});
