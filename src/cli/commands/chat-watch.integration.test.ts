import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../../test/support/scripted-openai-server.js';
import { createSkillTree, type SkillTree, skillMarkdown } from '../../repository/testing/skill-tree.js';
import { main } from '../main.js';

// `skillbox chat --watch`: skills written to disk while the chat runs reach the next turn's
// catalog and tools. Real files, the real CLI, the scripted OpenAI-compatible server.

let server: ScriptedOpenAiServer | undefined;
let home: string;
let tree: SkillTree;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'skillbox-chat-watch-'));
  tree = await createSkillTree({
    'csv-tools/SKILL.md': skillMarkdown('csv-tools', 'Count CSV rows'),
    'old-skill/SKILL.md': skillMarkdown('old-skill', 'About to be removed'),
  });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(home, { recursive: true, force: true });
  await tree.remove();
});

function startChat(args: string[]) {
  let stdout = '';
  let stderr = '';
  const input = new PassThrough();
  const done = main(['chat', '--root', tree.dir, '--runtime', 'local', '--db', join(home, 'chat.db'), ...args], {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    cwd: home,
    env: { HOME: home, USER: 'tester', OPENAI_BASE_URL: server!.baseUrl, SKILLBOX_MODEL: 'm' },
    stdin: input,
  });
  const waitFor = async (read: () => string, text: string) => {
    const deadline = Date.now() + 20_000;
    while (!read().includes(text)) {
      if (Date.now() > deadline) throw new Error(`"${text}" never appeared; stdout:\n${stdout}\nstderr:\n${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return {
    send: (line: string) => void input.write(`${line}\n`),
    waitForStdout: (text: string) => waitFor(() => stdout, text),
    waitForStderr: (text: string) => waitFor(() => stderr, text),
    finish: async () => {
      input.end();
      return { code: await done, stdout, stderr };
    },
  };
}

describe('skillbox chat --watch', () => {
  it('says what changed on disk, and the next turn has the new catalog and skill enum', async () => {
    server = await startScriptedOpenAiServer([
      { text: 'First.' },
      { toolCalls: [{ name: 'skill_load', arguments: { skill: 'fresh' } }] },
      { text: 'Loaded the new one.' },
    ]);
    const chat = startChat(['--watch']);
    chat.send('hello');
    await chat.waitForStdout('First.');
    await tree.write({
      'fresh/SKILL.md': skillMarkdown('fresh', 'Written while the chat runs', '# Fresh\n\nFRESH-BODY\n'),
    });
    await writeFile(tree.path('csv-tools/SKILL.md'), skillMarkdown('csv-tools', 'Count and sum CSV rows'));
    await rm(tree.path('old-skill'), { recursive: true });
    // One line per settled burst; a loaded machine may split the three edits over two.
    await chat.waitForStderr('skillbox chat: skills changed on disk: added fresh');
    for (const part of ['removed old-skill', 'changed csv-tools']) await chat.waitForStderr(part);
    chat.send('use the new skill');
    await chat.waitForStdout('Loaded the new one.');
    const result = await chat.finish();
    expect(result.code).toBe(0);
    const [first, second, third] = server.requests;
    const catalogOf = (index: number) => String(server!.requests[index]?.body.messages[0]?.content);
    expect(catalogOf(0)).toContain('- old-skill: About to be removed');
    expect(catalogOf(0)).not.toContain('fresh');
    expect(catalogOf(1)).toContain('- fresh: Written while the chat runs');
    expect(catalogOf(1)).toContain('- csv-tools: Count and sum CSV rows');
    expect(catalogOf(1)).not.toContain('old-skill');
    const skillEnum = (request: typeof first) =>
      JSON.stringify(request?.body.tools?.find((tool) => tool.function.name === 'skill_load')?.function.parameters);
    expect(skillEnum(first)).not.toContain('"fresh"');
    expect(skillEnum(second)).toContain('"fresh"');
    expect(result.stdout).toContain('· skill_load {"skill":"fresh"} → loaded: fresh');
    expect(JSON.stringify(third?.body.messages)).toContain('FRESH-BODY');
  }, 60_000);

  it('without --watch a skill added meanwhile is not in the next turn', async () => {
    server = await startScriptedOpenAiServer([{ text: 'First.' }, { text: 'Second.' }]);
    const chat = startChat([]);
    chat.send('hello');
    await chat.waitForStdout('First.');
    await tree.write({ 'fresh/SKILL.md': skillMarkdown('fresh', 'Written while the chat runs') });
    // Longer than the watching chat needs to notice it.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    chat.send('again');
    await chat.waitForStdout('Second.');
    const result = await chat.finish();
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('skills changed on disk');
    expect(String(server.requests[1]?.body.messages[0]?.content)).not.toContain('fresh');
  }, 60_000);
});
