import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { parseMcpArguments } from './mcp.js';

async function runMcp(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (text: string) => void (stdout += text),
    stderr: (text: string) => void (stderr += text),
    cwd: process.cwd(),
    env: {},
  };
  const code = await main(['mcp', ...args], io);
  return { code, stdout, stderr };
}

describe('skillbox mcp arguments', () => {
  it('defaults to the knowledge profile and the auto runtime, and keeps every --root in order', () => {
    expect(parseMcpArguments([])).toEqual({ roots: [], profile: 'knowledge', runtime: 'auto', watch: true });
    expect(parseMcpArguments(['--root', 'a', '--root', 'b', '--profile', 'full', '--runtime', 'local'])).toEqual({
      roots: ['a', 'b'],
      profile: 'full',
      runtime: 'local',
      watch: true,
    });
    expect(parseMcpArguments(['--catalog-tokens', '4000'])).toEqual({
      roots: [],
      profile: 'knowledge',
      runtime: 'auto',
      catalogTokens: 4000,
      watch: true,
    });
    expect(parseMcpArguments(['--catalog-tokens', '0'])).toEqual({
      roots: [],
      profile: 'knowledge',
      runtime: 'auto',
      catalogTokens: 0,
      watch: true,
    });
    expect(parseMcpArguments(['--http', '3000', '--host', '0.0.0.0', '--token', 't'])).toEqual({
      roots: [],
      profile: 'knowledge',
      runtime: 'auto',
      httpPort: 3000,
      host: '0.0.0.0',
      token: 't',
      watch: true,
    });
    expect(
      parseMcpArguments([
        '--http',
        '0',
        '--max-sessions',
        '16',
        '--session-idle',
        '600',
        '--session-reclaim-after',
        '0.5',
        '--session-wait',
        '0',
      ]),
    ).toMatchObject({ maxSessions: 16, sessionIdleMs: 600_000, sessionReclaimAfterMs: 500, sessionWaitMs: 0 });
    expect(parseMcpArguments(['--profile', 'full', '--approve']).approve).toBe(true);
    expect(parseMcpArguments(['--profile', 'full'])).not.toHaveProperty('approve');
    expect(parseMcpArguments(['--no-watch']).watch).toBe(false);
    expect(parseMcpArguments(['--watch']).watch).toBe(true);
  });

  it('refuses an unknown profile, an unknown runtime, a runtime without the full profile and positionals, with the usage and exit 2', async () => {
    for (const [args, message] of [
      [['--profile', 'all'], '--profile must be one of knowledge, full; got "all"'],
      [
        ['--profile', 'full', '--runtime', 'docker'],
        '--runtime must be one of auto, sandbox, local, container; got "docker"',
      ],
      [['--runtime', 'local'], '--runtime applies only with --profile full'],
      [['--catalog-tokens=-1'], '--catalog-tokens must be a whole number of tokens (0 for no limit); got "-1"'],
      [['--catalog-tokens', '1e3'], '--catalog-tokens must be a whole number of tokens (0 for no limit); got "1e3"'],
      [['skills'], 'skills'],
      [['--http', '70000'], '--http must be a TCP port from 0 to 65535; got "70000"'],
      [['--token', 'secret'], '--token applies only with --http'],
      [['--max-sessions', '8'], '--max-sessions applies only with --http'],
      [['--session-wait', '5'], '--session-wait applies only with --http'],
      [['--http', '0', '--max-sessions', '0'], '--max-sessions must be a whole number of sessions from 1; got "0"'],
      [['--http', '0', '--session-idle', '0'], '--session-idle must be a number of seconds above 0; got "0"'],
      [['--http', '0', '--session-reclaim-after=-1'], '--session-reclaim-after must be a number of seconds; got "-1"'],
      [['--http', '0', '--session-wait', '61'], '--session-wait must be a number of seconds from 0 to 60; got "61"'],
      [
        ['--http', '0', '--session-wait', 'soon'],
        '--session-wait must be a number of seconds from 0 to 60; got "soon"',
      ],
      [['--watch', '--no-watch'], '--watch and --no-watch contradict each other; give one'],
      [['--approve'], '--approve applies only with --profile full'],
    ] as const) {
      const result = await runMcp([...args]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(message);
      expect(result.stderr).toContain('Usage: skillbox mcp');
    }
  });

  it('refuses a missing --root before serving anything, naming it, with nothing on standard output', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'skillbox-mcp-cli-'));
    try {
      const missing = join(parent, 'no-such-folder');
      const result = await runMcp(['--root', missing]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(missing);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('is listed by skillbox help', async () => {
    let stdout = '';
    await main(['help'], { stdout: (text) => void (stdout += text), stderr: () => {}, cwd: process.cwd(), env: {} });
    expect(stdout).toMatch(/\n {2}mcp +serve the skills to an MCP client over stdio\n/);
  });
});
