import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../../test/support/scripted-openai-server.js';
import { SqliteSessionStore } from '../../sessions/sqlite/index.js';
import { main } from '../main.js';
import { parseChatArguments } from './chat.js';

// `skillbox chat --approve` through the real CLI entry, the real provider over loopback HTTP and a
// SQLite session file; the person's answers are piped into standard input after the messages.
// The local runtime lets the script write a marker on the host: its absence is what "not run" means.

let server: ScriptedOpenAiServer | undefined;
let home: string;
let skills: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'skillbox-chat-approval-'));
  skills = join(home, 'skills');
  const skill = join(skills, 'writer');
  await mkdir(join(skill, 'scripts'), { recursive: true });
  await writeFile(join(skill, 'SKILL.md'), '---\nname: writer\ndescription: Writes a file.\n---\nRun touch.sh.\n');
  await writeFile(join(skill, 'scripts', 'touch.sh'), 'echo ran > "$1"\n');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(home, { recursive: true, force: true });
});

async function chat(args: string[], stdin: string) {
  let stdout = '';
  let stderr = '';
  const input = new PassThrough();
  input.end(stdin);
  const code = await main(['chat', '--root', skills, '--runtime', 'local', '--approve', ...args], {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    cwd: home,
    env: {
      HOME: home,
      USER: 'tester',
      OPENAI_BASE_URL: server!.baseUrl,
      OPENAI_API_KEY: 'sk-test',
      SKILLBOX_MODEL: 'scripted-model',
    },
    stdin: input,
  });
  return { code, stdout, stderr };
}

const load = { toolCalls: [{ name: 'skill_load', arguments: { skill: 'writer' } }] };
const run = (file: string) => ({
  toolCalls: [{ name: 'skill_run', arguments: { skill: 'writer', command: `bash scripts/touch.sh ${file}` } }],
});

async function storedApprovals(sessionId: string) {
  const store = SqliteSessionStore.open({ path: join(home, '.skillbox', 'sessions.db') });
  try {
    const session = await store.getSession({ appName: 'skillbox-chat', userId: 'tester', sessionId });
    return session?.events
      .filter((event) => event.type.startsWith('approval-'))
      .map((event) => ({ type: event.type, content: event.content as Record<string, unknown> }));
  } finally {
    await store.close();
  }
}

describe('skillbox chat --approve', () => {
  it('parses --approve', () => {
    expect(parseChatArguments(['--approve'])).toMatchObject({ approve: true });
    expect(parseChatArguments([])).not.toHaveProperty('approve');
  });

  it('shows the exact command, skill and files; d denies, nothing runs, the model is told, the session records it', async () => {
    const file = join(home, 'denied.txt');
    server = await startScriptedOpenAiServer([load, run(file), { text: 'I did not write it.' }]);
    const result = await chat(['--session', 'deny'], 'write the file\nd\n');
    expect(result.code).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect(result.stderr).toContain('skill_run of skill "writer" wants to run:\n');
    expect(result.stderr).toContain(`  command: bash scripts/touch.sh ${file}\n`);
    expect(result.stderr).toContain('  files staged: skills/writer/SKILL.md, skills/writer/scripts/touch.sh\n');
    expect(result.stderr).toContain('Allow? [o]nce / [a]lways for this skill / [d]eny: ');
    const toolMessage = String(server.requests[2]?.body.messages.at(-1)?.content);
    expect(toolMessage).toContain('Not run: the person denied skill_run of skill \\"writer\\"');
    expect(await storedApprovals('deny')).toMatchObject([
      { type: 'approval-request', content: { command: `bash scripts/touch.sh ${file}`, skill: 'writer' } },
      { type: 'approval-decision', content: { decision: 'deny', source: 'person' } },
    ]);
  });

  it('a asks once: the next command of the same skill in a later turn runs without a prompt', async () => {
    const first = join(home, 'first.txt');
    const second = join(home, 'second.txt');
    server = await startScriptedOpenAiServer([load, run(first), { text: 'one' }, run(second), { text: 'two' }]);
    const result = await chat(['--session', 'always', '--load-mode', 'session'], 'first\nbogus\na\nsecond\n');
    expect(result.code).toBe(0);
    expect(existsSync(first) && existsSync(second)).toBe(true);
    expect(result.stderr).toContain('"bogus" is not an answer; type o, a or d.');
    expect(result.stderr.split('Allow? ').length - 1).toBe(2);
    expect((await storedApprovals('always'))?.map((event) => event.content.source ?? 'request')).toEqual([
      'request',
      'person',
      'remembered',
    ]);
  });

  it('text typed into a background shell is asked about too: a shell approved once does not run a denied command', async () => {
    const sneaked = join(home, 'sneaked.txt');
    server = await startScriptedOpenAiServer((request, index) => {
      if (index === 0)
        return {
          toolCalls: [{ name: 'workspace_exec', arguments: { command: 'bash', background: true, yield_ms: 0 } }],
        };
      if (index === 1) {
        const processId = /proc_[A-Za-z0-9_-]+/.exec(String(request.body.messages.at(-1)?.content))?.[0];
        return {
          toolCalls: [
            {
              name: 'workspace_write_stdin',
              arguments: { process_id: processId, chars: `echo ran > ${sneaked}`, submit: true, yield_ms: 1000 },
            },
          ],
        };
      }
      return { text: 'done' };
    });
    const result = await chat(['--once', 'start a shell'], 'o\nd\n');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`  command: echo ran > ${sneaked}\n`);
    expect(String(server.requests[2]?.body.messages.at(-1)?.content)).toContain('Not run: the person denied');
    expect(existsSync(sneaked)).toBe(false);
  });

  it('--once takes the answer from standard input; without one the command does not run', async () => {
    const once = join(home, 'once.txt');
    server = await startScriptedOpenAiServer([load, run(once), { text: 'done' }]);
    expect((await chat(['--once', 'write'], 'o\n')).code).toBe(0);
    expect(existsSync(once)).toBe(true);

    await server.close();
    const unanswered = join(home, 'unanswered.txt');
    server = await startScriptedOpenAiServer([load, run(unanswered), { text: 'not done' }]);
    const result = await chat(['--once', 'write'], '');
    expect(result.code).toBe(0);
    expect(existsSync(unanswered)).toBe(false);
    expect(String(server.requests[2]?.body.messages.at(-1)?.content)).toContain(
      "needs a person's approval and none was given (decide failed: no answer: standard input ended)",
    );
  });
});
