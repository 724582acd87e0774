import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { SqliteSessionStore } from '../../src/sessions/sqlite/index.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../support/scripted-openai-server.js';
import { sandboxWorks } from '../support/services.js';

// `skillbox chat` end to end: the real CLI entry (`main`), the real OpenAI-compatible provider over
// HTTP on loopback, the real sandbox and a real SQLite file; only the model's answers are scripted.

const examples = fileURLToPath(new URL('../../examples/skills/', import.meta.url));
let server: ScriptedOpenAiServer | undefined;
let home: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'skillbox-chat-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(home, { recursive: true, force: true });
});

async function chat(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const input = stdin === undefined ? undefined : new PassThrough();
  input?.end(stdin);
  const env = {
    HOME: home,
    USER: 'tester',
    OPENAI_BASE_URL: server!.baseUrl,
    OPENAI_API_KEY: 'sk-test',
    SKILLBOX_MODEL: 'scripted-model',
  };
  const code = await main(['chat', '--root', examples, ...args], {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    cwd: home,
    env,
    ...(input ? { stdin: input } : {}),
  });
  return { code, stdout, stderr };
}

describe('skillbox chat over a scripted OpenAI-compatible server', () => {
  it('--once loads a skill, runs its script, prints the final answer and keeps the session in SQLite', async () => {
    server = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'skill_load', arguments: { skill: 'python-math' } }] },
      {
        toolCalls: [
          {
            name: 'skill_run',
            arguments: {
              skill: 'python-math',
              command: 'python3 scripts/primes.py 20 > out/primes.txt',
              output_files: ['out/primes.txt'],
            },
          },
        ],
      },
      { text: 'The primes below 20 are 2, 3, 5, 7, 11, 13, 17 and 19.' },
      { text: 'Yes: 19 is the largest.' },
    ]);
    const first = await chat(['--once', 'Primes below 20?', '--session', 'primes']);
    expect(first.stderr).not.toContain('failed');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('The primes below 20 are 2, 3, 5, 7, 11, 13, 17 and 19.\n');
    // An id nobody used yet starts a new session, and the user is told so.
    expect(first.stderr).toContain('new session primes (resume with --session primes)\n');
    expect((await stat(join(home, '.skillbox'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(home, '.skillbox', 'sessions.db'))).mode & 0o777).toBe(0o600);
    // Where bubblewrap works `auto` picks the sandbox and there is nothing to warn about.
    expect(first.stderr.includes('WITHOUT isolation')).toBe(!sandboxWorks);
    expect(first.stderr).not.toContain('  ! ');
    expect(first.stderr).toContain('· skill_load {"skill":"python-math"} → loaded: python-math\n');
    expect(first.stderr).toMatch(/· skill_run \{"skill":"python-math",.*… → exit 0, files: out\/primes.txt\n/);

    const [load, run] = server.requests;
    expect(load?.headers.authorization).toBe('Bearer sk-test');
    expect(load?.body.model).toBe('scripted-model');
    expect(load?.body.stream).toBe(true);
    expect(load?.body.messages[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining('- python-math: Small Python utilities'),
    });
    expect(load?.body.tools?.map((entry) => entry.function.name)).toEqual([
      'skill_load',
      'skill_list_docs',
      'skill_select_docs',
      'skill_read',
      'skill_run',
      'workspace_exec',
      'workspace_write_stdin',
      'workspace_poll',
      'workspace_kill',
      'workspace_list',
      'workspace_read',
      'workspace_write',
      'workspace_edit',
      'workspace_glob',
      'workspace_grep',
    ]);
    // tool-result materialisation (the default): the body is in the skill_load result, the system message is unchanged.
    expect(run?.body.messages[0]).toEqual(load?.body.messages[0]);
    expect(run?.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringMatching(/^\[Loaded\] python-math\n\n# Python math/),
    });
    const runResult = JSON.parse(String(server.requests[2]?.body.messages.at(-1)?.content)) as {
      exit_code: number;
      output_files: Array<{ name: string; content: string }>;
    };
    expect(runResult.exit_code).toBe(0);
    expect(runResult.output_files[0]).toMatchObject({
      name: 'out/primes.txt',
      content: '2\n3\n5\n7\n11\n13\n17\n19\n',
    });

    const second = await chat(['--once', 'Is 19 the largest?', '--session', 'primes', '--materialize', 'system']);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('Yes: 19 is the largest.\n');
    expect(second.stderr).toContain('resuming session primes (resume with --session primes)\n');
    const resumed = server.requests[3]!.body.messages;
    expect(resumed.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([
      'Primes below 20?',
      'Is 19 the largest?',
    ]);
    // Turn mode: the skill was unloaded when the new turn began, so only its stub remains.
    expect(JSON.stringify(resumed)).not.toContain('[Loaded] python-math');

    const store = SqliteSessionStore.open({ path: join(home, '.skillbox', 'sessions.db') });
    try {
      const session = await store.getSession({ appName: 'skillbox-chat', userId: 'tester', sessionId: 'primes' });
      expect(session?.events.filter((event) => event.author === 'user')).toHaveLength(2);
      expect(JSON.stringify(session?.events)).not.toContain('[Loaded]');
    } finally {
      await store.close();
    }
  });

  it('reads messages from standard input, streams text and ends at EOF', async () => {
    server = await startScriptedOpenAiServer([{ text: 'Hello there!' }, { text: 'Bye.' }]);
    const result = await chat(['--db', 'chat.db', '--runtime', 'local'], 'hi\n\n   \nbye\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Hello there!\nBye.\n');
    expect(server.requests).toHaveLength(2);
    // The user, not only the model, is told once that scripts run unconfined.
    expect(result.stderr.match(/WITHOUT isolation, because you chose --runtime local/g)).toHaveLength(1);
    expect(result.stderr).toContain('apt-get install bubblewrap');
  });

  it('ignores empty lines and ends at /exit', async () => {
    server = await startScriptedOpenAiServer([{ text: 'One.' }, { text: 'Two.' }]);
    const result = await chat(['--db', 'chat.db', '--runtime', 'local'], 'first\n\nsecond\n/exit\nnever sent\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('One.\nTwo.\n');
    expect(server.requests).toHaveLength(2);
  });

  it('reports a failing endpoint as a failed turn with exit 1', async () => {
    server = await startScriptedOpenAiServer([{ errorStatus: 401, errorMessage: 'invalid api key' }]);
    const result = await chat(['--once', 'hi', '--db', 'chat.db']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('skillbox chat: the turn failed: invalid api key');
  });
});
