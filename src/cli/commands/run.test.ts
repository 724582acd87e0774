import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../../test/support/services.js';
import { main } from '../main.js';

const examples = path.resolve('examples/skills');
let temporary: string;

beforeEach(async () => {
  temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-cli-run-'));
});
afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

async function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  let stdout = '';
  let stderr = '';
  const code = await main(['run', ...args], {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    cwd: temporary,
    env: { HOME: temporary, ...env },
  });
  return {
    code,
    stdout,
    stderr,
    json: () =>
      JSON.parse(stdout) as Record<string, unknown> & { output_files: Array<{ name: string; content?: string }> },
  };
}

describe('skillbox run', () => {
  it('joins the words after -- into one bash command and prints the result JSON', async () => {
    const result = await cli([
      'python-math',
      '--root',
      examples,
      '--runtime',
      'local',
      '--',
      'python3',
      'scripts/fib.py',
      '5',
      '>',
      'out/fib.txt',
    ]);
    expect(result.code).toBe(0);
    const json = result.json();
    expect(json.exit_code).toBe(0);
    expect(json.output_files.map((file) => file.name)).toEqual(['out/fib.txt']);
    expect(json.output_files[0]?.content?.trim().split(/\s+/)).toEqual(['0', '1', '1', '2', '3']);
  });

  it("mirrors the command's exit status and reports a timeout as 124", async () => {
    expect((await cli(['python-math', '--root', examples, '--runtime', 'local', '--', 'exit 7'])).code).toBe(7);
    const slow = await cli([
      'python-math',
      '--root',
      examples,
      '--runtime',
      'local',
      '--timeout',
      '0.5',
      '--',
      'sleep 5',
    ]);
    expect(slow.code).toBe(124);
    expect(slow.json().timed_out).toBe(true);
  });

  it('copies --input files, sets --env, passes only --allow-env host variables, and collects --output globs', async () => {
    await writeFile(path.join(temporary, 'notes.txt'), 'one two\nthree\n');
    const result = await cli(
      [
        'python-math',
        '--root',
        examples,
        '--runtime',
        'local',
        '--input',
        'notes.txt',
        '--env',
        'GREETING=hi',
        '--allow-env',
        'VISIBLE',
        '--output',
        '$OUTPUT_DIR/*.json',
        '--',
        'python3 scripts/stats.py inputs/notes.txt > out/stats.json; echo "$GREETING $VISIBLE [$HIDDEN]"',
      ],
      { VISIBLE: 'yes', HIDDEN: 'secret' },
    );
    const json = result.json();
    expect(json.stdout).toBe('hi yes []\n');
    expect(json.output_files.map((file) => file.name)).toEqual(['out/stats.json']);
    expect(json.output_files[0]?.content).toMatch(/"words":\s*3/);
  });

  it.runIf(sandboxWorks)('shows --ro folders read-only in the sandbox', async () => {
    const shared = path.join(temporary, 'shared');
    await mkdir(shared);
    await writeFile(path.join(shared, 'data.txt'), 'shared data');
    const result = await cli([
      'python-math',
      '--root',
      examples,
      '--runtime',
      'sandbox',
      '--ro',
      'shared',
      '--',
      `cat ${shared}/data.txt && echo x > ${shared}/data.txt`,
    ]);
    expect(result.code).toBe(1);
    expect(result.json().stdout).toBe('shared data');
    expect(result.json().stderr).toMatch(/Read-only file system/);
    expect(await readFile(path.join(shared, 'data.txt'), 'utf8')).toBe('shared data');
  });

  it('removes its workspace afterwards unless --keep', async () => {
    const before = new Set(await readdir(os.tmpdir()));
    await cli(['python-math', '--root', examples, '--runtime', 'local', '--', 'true']);
    const left = (await readdir(os.tmpdir())).filter((name) => name.startsWith('skillbox-run-') && !before.has(name));
    expect(left).toEqual([]);
    const kept = await cli(['python-math', '--root', examples, '--runtime', 'local', '--keep', '--', 'true']);
    const root = /workspace kept at (.+)\n/.exec(kept.stderr)?.[1];
    expect(root).toBeDefined();
    expect(await readdir(root!)).toContain('metadata.json');
    await rm(path.dirname(root!), { recursive: true, force: true });
  });

  it('reports bad usage with exit status 2 and an unknown skill with 1', async () => {
    expect((await cli(['python-math', '--root', examples])).stderr).toMatch(/give the command after --/);
    expect((await cli(['python-math', '--root', examples, '--runtime', 'docker', '--', 'true'])).code).toBe(2);
    expect((await cli(['python-math', '--root', examples, '--env', 'LD_PRELOAD=x', '--', 'true'])).stderr).toMatch(
      /LD_PRELOAD/,
    );
    expect((await cli(['python-math', '--root', examples, '--timeout', '-3', '--', 'true'])).code).toBe(2);
    const longTimeout = await cli([
      'python-math',
      '--root',
      examples,
      '--runtime',
      'local',
      '--timeout',
      '3000000',
      '--',
      'true',
    ]);
    expect(longTimeout.code).toBe(2);
    expect(longTimeout.stderr).toMatch(/--timeout must be at most 2147483 seconds/);
    expect((await cli(['python-math', '--root', examples, '--ro', '/', '--', 'true'])).code).toBe(2);
    expect((await cli(['python-math', '--root', examples, '--ro', 'missing-folder', '--', 'true'])).stderr).toMatch(
      /--ro "missing-folder" does not exist/,
    );
    const badGlob = await cli([
      'python-math',
      '--root',
      examples,
      '--runtime',
      'local',
      '--output',
      'out/[z-a]',
      '--',
      'echo ran > out/ran.txt',
    ]);
    expect(badGlob.code).toBe(2);
    expect(badGlob.stderr).toMatch(/--output .*"out\/\[z-a\]": not a valid glob/);
    const unknown = await cli(['nope', '--root', examples, '--runtime', 'local', '--', 'true']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('skillbox run: skill "nope" not found; `skillbox list` shows the available names\n');
    const typo = await cli(['pyton-math', '--root', examples, '--runtime', 'local', '--', 'true']);
    expect(typo).toMatchObject({ code: 1, stdout: '' });
    expect(typo.stderr).toBe(
      'skillbox run: skill "pyton-math" not found. Did you mean python-math? `skillbox list` shows the available names\n',
    );
  });
});
