import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CliIo } from './command.js';
import { commands } from './commands/index.js';
import { main } from './main.js';
import { startProgress } from './progress.js';
import { colorsEnabled, paint } from './terminal-style.js';

async function run(
  argv: string[],
  extra: Partial<CliIo> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    cwd: process.cwd(),
    env: {},
    ...extra,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

describe('skillbox help and version', () => {
  it('answers --help and -h on every subcommand with its usage on stdout and exit 0, whatever else is given', async () => {
    for (const entry of commands) {
      const command = await entry.load();
      expect(command.name).toBe(entry.name);
      for (const flag of ['--help', '-h']) {
        // Other arguments, even bad ones, do not matter once help is asked for.
        const result = await run([command.name, '--root', '/no/such/folder', flag, '--bogus']);
        expect(result, `${command.name} ${flag}`).toEqual({ code: 0, stdout: expect.any(String), stderr: '' });
        expect(result.stdout.startsWith(`${command.usage.trimEnd()}\n`), `${command.name} ${flag}`).toBe(true);
        // Commands that open a repository say what --locked does to them.
        expect(result.stdout.includes('  --locked     serve a skill only while'), `${command.name} ${flag}`).toBe(
          ['list', 'show', 'prompt', 'tokens', 'run', 'chat', 'mcp'].includes(command.name),
        );
      }
      const help = await run(['help', command.name]);
      expect(help.code).toBe(0);
      expect(help.stdout.startsWith(`${command.usage.trimEnd()}\n`)).toBe(true);
    }
  });

  it('leaves --help after -- to the command skillbox run runs', async () => {
    const result = await run(['run', 'no-such-skill', '--root', process.cwd(), '--', 'ls', '--help']);
    expect(result.stdout).not.toContain('Usage: skillbox run');
  });

  it('prints the version from package.json for --version, -v and version', async () => {
    for (const flag of ['--version', '-v', 'version'])
      expect(await run([flag])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('prints the overview for no arguments, --help and -h', async () => {
    for (const argv of [[], ['--help'], ['-h'], ['help']]) {
      const result = await run(argv);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: skillbox <command> \[options\]\n/);
      for (const command of commands) expect(result.stdout).toContain(`  ${command.name}`);
    }
  });
});

describe('skillbox on bad usage', () => {
  it('answers an unknown command with the overview, a suggestion and exit 2', async () => {
    const result = await run(['lsit']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^skillbox: unknown command "lsit". Did you mean list\?\n\nUsage: skillbox <command>/,
    );
    expect((await run(['frobnicate'])).stderr).toMatch(/^skillbox: unknown command "frobnicate".\n\n/);
    expect((await run(['--verison'])).stderr).toMatch(
      /^skillbox: unknown option --verison. Did you mean --version\?\n/,
    );
    expect(await run(['help', 'tokns'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(/^skillbox help: unknown command "tokns". Did you mean tokens\?/),
    });
  });

  it('answers an unknown option of a subcommand with its usage, a suggestion and exit 2', async () => {
    for (const [argv, message] of [
      [['list', '--jsno'], 'skillbox list: unknown option --jsno. Did you mean --json?'],
      [['tokens', '--format=xml', '--rot', 'x'], 'skillbox tokens: unknown option --rot. Did you mean --root?'],
      [['mcp', '--catalog-token', '5'], 'skillbox mcp: unknown option --catalog-token. Did you mean --catalog-tokens?'],
      [['prompt', '--profile', 'ful'], 'skillbox prompt: --profile must be knowledge or full, got "ful"'],
      [['mcp', '--profile', 'ful'], '--profile must be one of knowledge, full; got "ful"; did you mean "full"?'],
      [['validate', '--xyz', 'a'], 'skillbox validate: unknown option --xyz.\n'],
    ] as const) {
      const result = await run([...argv]);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(message);
      expect(result.stderr).toContain(`Usage: skillbox ${argv[0]}`);
    }
  });
});

describe('colours', () => {
  const terminal = { stdoutIsTerminal: true, stderrIsTerminal: true };
  const io = (env: NodeJS.ProcessEnv, terminals: Partial<CliIo> = terminal): CliIo => ({
    stdout: () => {},
    stderr: () => {},
    cwd: '/',
    env,
    ...terminals,
  });

  it('are used on a terminal only, and NO_COLOR turns them off, FORCE_COLOR on', () => {
    expect(colorsEnabled(io({}), 'stderr')).toBe(true);
    expect(colorsEnabled(io({}, {}), 'stderr')).toBe(false);
    expect(colorsEnabled(io({}, { stdoutIsTerminal: true }), 'stderr')).toBe(false);
    expect(colorsEnabled(io({ NO_COLOR: '1' }), 'stderr')).toBe(false);
    expect(colorsEnabled(io({ NO_COLOR: '' }), 'stderr')).toBe(true);
    expect(colorsEnabled(io({ TERM: 'dumb' }), 'stdout')).toBe(false);
    expect(colorsEnabled(io({ FORCE_COLOR: '1' }, {}), 'stdout')).toBe(true);
    expect(colorsEnabled(io({ FORCE_COLOR: '0' }), 'stdout')).toBe(false);
    expect(colorsEnabled(io({ FORCE_COLOR: '1', NO_COLOR: '1' }, {}), 'stdout')).toBe(true);
    expect(paint(io({}), 'stderr', 'red', 'x')).toBe('\u001b[31mx\u001b[39m');
    expect(paint(io({}, {}), 'stderr', 'red', 'x')).toBe('x');
  });

  it('mark errors on a terminal and never in a pipe', async () => {
    const coloured = await run(['list', '--jsno'], { stderrIsTerminal: true });
    expect(coloured.stderr.startsWith('\u001b[31mskillbox list:\u001b[39m unknown option --jsno.')).toBe(true);
    const plain = await run(['list', '--jsno'], { stderrIsTerminal: false, env: { FORCE_COLOR: '0' } });
    expect(plain.stderr.startsWith('skillbox list: unknown option --jsno.')).toBe(true);
    expect(plain.stderr).not.toContain('\u001b[');
  });
});

describe('progress', () => {
  it('draws a status line on a terminal after the delay and clears it when done', async () => {
    let stderr = '';
    const io: CliIo = {
      stdout: () => {},
      stderr: (text) => void (stderr += text),
      cwd: '/',
      env: {},
      stderrIsTerminal: true,
    };
    const progress = startProgress(io, 'tokens', 'counting', { delayMs: 20, intervalMs: 10 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    progress.update('counting 3 skills');
    progress.done();
    expect(stderr).toMatch(/^\r\u001b\[2Kskillbox tokens: counting… 0s/);
    expect(stderr).toContain('skillbox tokens: counting 3 skills… 0s');
    expect(stderr.endsWith('\r\u001b[2K')).toBe(true);
  });

  it('says nothing for work shorter than the delay, or when standard error is not a terminal', async () => {
    for (const stderrIsTerminal of [true, false]) {
      let stderr = '';
      const io: CliIo = {
        stdout: () => {},
        stderr: (text) => void (stderr += text),
        cwd: '/',
        env: {},
        stderrIsTerminal,
      };
      const progress = startProgress(io, 'list', 'scanning', { delayMs: stderrIsTerminal ? 1000 : 0, intervalMs: 5 });
      await new Promise((resolve) => setTimeout(resolve, 30));
      progress.done();
      expect(stderr).toBe('');
    }
  });
});
