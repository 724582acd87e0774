import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type RecordedRequest,
  type ScriptedOpenAiServer,
  type ScriptedResponse,
  startScriptedOpenAiServer,
} from '../../../test/support/scripted-openai-server.js';
import { createSkillTree, type SkillTree, skillMarkdown } from '../../repository/testing/skill-tree.js';
import { main } from '../main.js';

// `skillbox chat` as a person uses it: lines on standard input, slash commands among them, the
// real CLI entry, real files and the real runtime; only the model's answers are scripted.

let server: ScriptedOpenAiServer | undefined;
let home: string;
let tree: SkillTree;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'skillbox-chat-slash-'));
  tree = await createSkillTree({
    'csv-tools/SKILL.md': skillMarkdown('csv-tools', 'Count and copy CSV rows', '# CSV tools\n\nUse cut and wc.\n'),
    'house-style/SKILL.md':
      '---\nname: house-style\ndescription: Our writing rules\ndisable-model-invocation: true\n---\n# House style\n\nALWAYS-WRITE-OXFORD-COMMAS\n',
    'transcode/SKILL.md':
      '---\nname: transcode\ndescription: Transcode videos\nmetadata:\n  requires-bins: skillbox-no-such-program\n---\n# Transcode\n',
  });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(home, { recursive: true, force: true });
  await tree.remove();
});

interface RunningChat {
  send(line: string): void;
  /** Resolves once `text` has appeared on the stream (fails after 20 s). */
  waitFor(stream: 'stdout' | 'stderr', text: string): Promise<void>;
  finish(): Promise<{ code: number; stdout: string; stderr: string }>;
  readonly stdout: string;
  readonly stderr: string;
}

function startChat(args: string[]): RunningChat {
  let stdout = '';
  let stderr = '';
  const input = new PassThrough();
  const done = main(['chat', '--root', tree.dir, '--db', join(home, 'chat.db'), ...args], {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    cwd: home,
    env: {
      HOME: home,
      USER: 'tester',
      OPENAI_BASE_URL: server!.baseUrl,
      OPENAI_API_KEY: 'sk-test',
      SKILLBOX_MODEL: 'first-model',
    },
    stdin: input,
  });
  return {
    send: (line) => void input.write(`${line}\n`),
    async waitFor(stream, text) {
      const deadline = Date.now() + 20_000;
      while (!(stream === 'stdout' ? stdout : stderr).includes(text)) {
        if (Date.now() > deadline)
          throw new Error(`"${text}" never appeared on ${stream}; stdout:\n${stdout}\nstderr:\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async finish() {
      input.end();
      const code = await done;
      return { code, stdout, stderr };
    },
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
  };
}

function userTexts(request: RecordedRequest | undefined): string[] {
  return (request?.body.messages ?? [])
    .filter((message) => message.role === 'user')
    .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)));
}

describe('skillbox chat slash commands', () => {
  it('/help, /skills, unknown commands and typos are answered locally and never reach the model', async () => {
    server = await startScriptedOpenAiServer([{ text: 'Hi.' }]);
    const chat = startChat(['--runtime', 'local']);
    chat.send('/help');
    chat.send('/skills');
    chat.send('/frobnicate');
    chat.send('/skils');
    chat.send('/skill csv-tool');
    chat.send('/skill');
    chat.send('/model two words');
    chat.send('//etc/hosts is a file');
    const result = await chat.finish();
    expect(result.code).toBe(0);
    for (const command of [
      '/help',
      '/skills',
      '/skill NAME [MESSAGE]',
      '/model [NAME]',
      '/attach PATH [as NAME]',
      '/quit',
    ])
      expect(result.stdout).toContain(command);
    expect(result.stdout).toMatch(/3 skills:\n {2}csv-tools +Count and copy CSV rows\n/);
    expect(result.stdout).toMatch(/ {2}house-style +Our writing rules {2}\[user-only: \/skill loads it\]\n/);
    expect(result.stdout).toMatch(
      / {2}transcode +Transcode videos {2}\[cannot run here: missing skillbox-no-such-program\]\n/,
    );
    expect(result.stdout).toContain('unknown command /frobnicate (/help lists the commands');
    expect(result.stdout).toContain('unknown command /skils; did you mean /skills?');
    expect(result.stdout).toContain('no skill named "csv-tool". Did you mean csv-tools?');
    expect(result.stdout).toContain('/skill needs a skill name');
    expect(result.stdout).toContain('/model takes one model id; got "two words"');
    // Only the // line was a message, sent with one slash taken off.
    expect(server.requests).toHaveLength(1);
    expect(userTexts(server.requests[0])).toEqual(['/etc/hosts is a file']);
  }, 60_000);

  it('/skill loads a skill hidden from the model into the next turn, and /model switches the model', async () => {
    server = await startScriptedOpenAiServer([{ text: 'Noted.' }, { text: 'Still here.' }, { text: 'Third.' }]);
    const chat = startChat(['--runtime', 'local']);
    chat.send('/skill house-style Write me a list of three fruits');
    await chat.waitFor('stdout', 'Noted.');
    chat.send('/model second-model');
    chat.send('/model');
    chat.send('/skill house-style');
    await chat.waitFor('stdout', 'skill house-style loads with your next message');
    chat.send('/skills');
    await chat.waitFor(
      'stdout',
      'Our writing rules  [loaded in the last turn; loads with your next message; user-only: /skill loads it]',
    );
    chat.send('And vegetables?');
    await chat.waitFor('stdout', 'Still here.');
    chat.send('No skill this time.');
    const result = await chat.finish();
    expect(result.code).toBe(0);
    const [first, second, third] = server.requests;
    // The model never sees house-style in its catalog, yet the user's load put its body in the turn.
    expect(JSON.stringify(first?.body.messages[0])).not.toContain('house-style');
    expect(JSON.stringify(first?.body.messages)).toContain('ALWAYS-WRITE-OXFORD-COMMAS');
    expect(userTexts(first)).toEqual(['Write me a list of three fruits']);
    expect(first?.body.model).toBe('first-model');
    expect(result.stdout).toContain('model: second-model from the next turn on\n');
    expect(result.stdout).toContain('model: second-model\n');
    expect(second?.body.model).toBe('second-model');
    expect(JSON.stringify(second?.body.messages.at(-1))).toContain('And vegetables?');
    expect(JSON.stringify(second?.body.messages)).toContain('ALWAYS-WRITE-OXFORD-COMMAS');
    // Turn load mode: a user load lasts one turn, like a model's.
    expect(third?.body.model).toBe('second-model');
    expect(JSON.stringify(third?.body.messages.at(-1))).toContain('No skill this time.');
    expect(JSON.stringify(third?.body.messages)).not.toContain('ALWAYS-WRITE-OXFORD-COMMAS');
  }, 60_000);

  it('/attach copies a host file into work/inputs, tells the model, and the outputs are saved on the host', async () => {
    await mkdir(join(home, 'data'));
    await writeFile(join(home, 'data', 'sales 2026.csv'), 'region,amount\nnorth,3\nsouth,4\n');
    const script: ScriptedResponse[] = [
      { toolCalls: [{ name: 'skill_load', arguments: { skill: 'csv-tools' } }] },
      {
        toolCalls: [
          {
            name: 'skill_run',
            arguments: {
              skill: 'csv-tools',
              command:
                'mkdir -p $OUTPUT_DIR/reports && cut -d, -f2 $WORK_DIR/inputs/q1/sales.csv > $OUTPUT_DIR/reports/amounts.txt && wc -l < $WORK_DIR/inputs/q1/sales.csv > $OUTPUT_DIR/count.txt',
            },
          },
        ],
      },
      { text: 'Counted.' },
    ];
    server = await startScriptedOpenAiServer(script);
    const outputDir = join(home, 'results');
    const chat = startChat(['--output-dir', 'results']);
    chat.send('/attach "data/sales 2026.csv" as q1/sales.csv');
    await chat.waitFor('stdout', 'as work/inputs/q1/sales.csv; the model is told with your next message');
    chat.send('/attach data/missing.csv');
    chat.send('/attach data');
    chat.send('/attach "data/sales 2026.csv" as ../escape.csv');
    chat.send('/attach "data/sales 2026.csv" as /etc/escape.csv');
    chat.send('/attach "data/sales 2026.csv" as');
    chat.send('Count the rows');
    await chat.waitFor('stdout', 'Counted.');
    const result = await chat.finish();
    expect(result.stderr).not.toContain('failed');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `attached ${join(home, 'data', 'sales 2026.csv')} (30 bytes) as work/inputs/q1/sales.csv`,
    );
    expect(result.stdout).toContain(`/attach: ${join(home, 'data', 'missing.csv')}: no such file`);
    expect(result.stdout).toContain(`/attach: ${join(home, 'data')} is a folder`);
    expect(result.stdout).toContain('/attach: the name "../escape.csv" has an empty, "." or ".." part');
    expect(result.stdout).toContain('/attach: the name "/etc/escape.csv" is absolute');
    expect(result.stdout).toContain('/attach: "as" takes one name');
    expect(userTexts(server.requests[0])).toEqual([
      '[The user attached a file: work/inputs/q1/sales.csv (30 bytes); commands find it at $WORK_DIR/inputs/q1/sales.csv.]\nCount the rows',
    ]);
    expect(result.stdout).toContain(`saved: ${join(outputDir, 'count.txt')}\n`);
    expect(result.stdout).toContain(`saved: ${join(outputDir, 'reports', 'amounts.txt')}\n`);
    expect(await readFile(join(outputDir, 'reports', 'amounts.txt'), 'utf8')).toBe('amount\n3\n4\n');
    expect((await readFile(join(outputDir, 'count.txt'), 'utf8')).trim()).toBe('3');
  }, 90_000);

  it('--once prints where output files were saved on standard error, under ./skillbox-output by default', async () => {
    server = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'skill_load', arguments: { skill: 'csv-tools' } }] },
      {
        toolCalls: [
          { name: 'skill_run', arguments: { skill: 'csv-tools', command: 'printf "a,b\\n" > $OUTPUT_DIR/table.csv' } },
        ],
      },
      { text: 'Wrote it.' },
    ]);
    let stdout = '';
    let stderr = '';
    const code = await main(['chat', '--root', tree.dir, '--once', 'Write a table'], {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      cwd: home,
      env: { HOME: home, USER: 'tester', OPENAI_BASE_URL: server.baseUrl, SKILLBOX_MODEL: 'm' },
    });
    expect(code).toBe(0);
    expect(stdout).toBe('Wrote it.\n');
    expect(stderr).toContain(`saved: ${join(home, 'skillbox-output', 'table.csv')}\n`);
    expect(await readFile(join(home, 'skillbox-output', 'table.csv'), 'utf8')).toBe('a,b\n');
  }, 60_000);
});
