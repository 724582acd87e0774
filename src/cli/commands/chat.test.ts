import { describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { isolationBanner, parseChatArguments, readChatEndpoint, toolCallLine } from './chat.js';

async function runChat(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(['chat', ...args], {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    cwd: process.cwd(),
    env,
  });
  return { code, stdout, stderr };
}

describe('skillbox chat arguments', () => {
  it('parses every option with its defaults', () => {
    expect(parseChatArguments([])).toEqual({
      roots: [],
      mcp: [],
      materialize: 'tool-result',
      loadMode: 'turn',
      runtime: 'auto',
      maxSteps: 20,
      outputDir: 'skillbox-output',
      watch: false,
    });
    expect(
      parseChatArguments([
        '--root',
        'a',
        '--root',
        'b',
        '--session',
        's1',
        '--once',
        'hi',
        '--materialize',
        'system',
        '--load-mode',
        'session',
        '--runtime',
        'local',
        '--db',
        'x.db',
        '--user',
        'me',
        '--max-steps',
        '3',
        '--mcp',
        'docs=npx skillbox mcp',
        '--output-dir',
        'results',
        '--watch',
      ]),
    ).toEqual({
      roots: ['a', 'b'],
      mcp: ['docs=npx skillbox mcp'],
      sessionId: 's1',
      once: 'hi',
      materialize: 'system',
      loadMode: 'session',
      runtime: 'local',
      db: 'x.db',
      userId: 'me',
      maxSteps: 3,
      outputDir: 'results',
      watch: true,
    });
  });

  it('refuses bad values naming the option, with the usage and exit 2', async () => {
    for (const [args, message] of [
      [['--materialize', 'inline'], '--materialize must be one of system, tool-result; got "inline"'],
      [['--load-mode', 'forever'], '--load-mode must be one of turn, once, session; got "forever"'],
      [['--runtime', 'docker'], '--runtime must be one of auto, sandbox, local, container; got "docker"'],
      [['--max-steps', '0'], '--max-steps must be a positive integer; got "0"'],
      [['--session', ' '], '--session needs a non-empty value'],
      [['--output-dir', ''], '--output-dir needs a non-empty value'],
      [['--colour'], 'unknown option --colour.'],
    ] as const) {
      const result = await runChat([...args], {});
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stderr).toContain('Usage: skillbox chat');
    }
  });

  it('without an endpoint says exactly what to set and exits 2', async () => {
    const result = await runChat(['--once', 'hi'], { OPENAI_API_KEY: 'k' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'skillbox chat: no model endpoint is configured (missing: OPENAI_BASE_URL, SKILLBOX_MODEL). Set:\n' +
        '  OPENAI_BASE_URL  the OpenAI-compatible endpoint, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1\n' +
        '  SKILLBOX_MODEL   the model id, e.g. gpt-4o-mini\n' +
        '  OPENAI_API_KEY   the API key, when the endpoint needs one\n',
    );
    expect(readChatEndpoint({ OPENAI_BASE_URL: 'http://x/v1' })).toEqual({
      problem: expect.stringContaining('missing: SKILLBOX_MODEL'),
    });
    expect(readChatEndpoint({ OPENAI_BASE_URL: 'ftp://x', SKILLBOX_MODEL: 'm' })).toEqual({
      problem: expect.stringContaining('must be an http(s) URL'),
    });
    expect(readChatEndpoint({ OPENAI_BASE_URL: 'http://x/v1', SKILLBOX_MODEL: 'm', OPENAI_API_KEY: ' ' })).toEqual({
      baseUrl: 'http://x/v1',
      model: 'm',
    });
  });

  it('prints one line per tool call', () => {
    expect(
      toolCallLine(
        { toolName: 'skill_load', input: { skill: 'x' } },
        { type: 'tool-result', stepNumber: 0, toolCallId: 'c', toolName: 'skill_load', output: 'loaded: x' },
      ),
    ).toBe('· skill_load {"skill":"x"} → loaded: x\n');
    expect(
      toolCallLine(undefined, {
        type: 'tool-result',
        stepNumber: 0,
        toolCallId: 'c',
        toolName: 'skill_run',
        output: { exit_code: 0, output_files: [{ name: 'out/a.txt' }] },
      }),
    ).toBe('· skill_run → exit 0, files: out/a.txt\n');
    expect(
      toolCallLine(undefined, {
        type: 'tool-result',
        stepNumber: 0,
        toolCallId: 'c',
        toolName: 't',
        error: 'bad\ninput',
      }),
    ).toBe('· t → failed: bad input\n');
  });

  it('prints each run warning under the tool line', () => {
    const output = {
      exit_code: 0,
      output_files: [],
      warnings: ['NOT ISOLATED: ran on the host', 'stdout cut at 1 MiB'],
    };
    expect(
      toolCallLine(undefined, { type: 'tool-result', stepNumber: 0, toolCallId: 'c', toolName: 'skill_run', output }),
    ).toBe('· skill_run → exit 0\n  ! NOT ISOLATED: ran on the host\n  ! stdout cut at 1 MiB\n');
  });

  it('explains an unisolated runtime and how to get the sandbox on this platform', () => {
    const linux = isolationBanner({ requested: 'auto', platform: 'linux', reason: 'bwrap was not found' });
    expect(linux).toContain('WITHOUT isolation, because the sandbox is unavailable (bwrap was not found)');
    expect(linux).toContain('can read and change anything you can');
    expect(linux).toContain('apt-get install bubblewrap');
    expect(isolationBanner({ requested: 'local', platform: 'linux' })).toContain('because you chose --runtime local');
    const mac = isolationBanner({
      requested: 'auto',
      platform: 'darwin',
      reason: 'bubblewrap needs Linux, this is darwin',
    });
    expect(mac).toContain('The sandbox needs Linux (bubblewrap); on macOS');
    expect(mac).not.toContain('apt-get');
  });
});
