import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assistantInstructions,
  exampleSkillsRoot as examples,
  toolResultText,
} from '../../../test/support/example-skill-conversations.js';
import { expectNoHostLeak, plantHostSecrets } from '../../../test/support/host-leak-probe.js';
import { importOptionalPeer } from '../../../test/support/optional-peer.js';
import { startScriptedOpenAiServer } from '../../../test/support/scripted-openai-server.js';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { createRuntime } from '../../runtime/create-runtime.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';
import { createRepositorySkillSource, createWorkspaceSandbox } from './index.js';

// Mastra's real Agent and Workspace, its AI SDK model pointed at the scripted chat-completions
// server on loopback; skills from a skillbox repository, commands in skillbox's sandbox.
const present = (await importOptionalPeer('Mastra agent', () => import('@mastra/core/agent'))) !== undefined;

let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-mastra-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('Mastra Agent with a skillbox skill source and workspace sandbox', () => {
  it.skipIf(!present)(
    'lists, activates and reads skillbox skills, and runs execute_command in the sandbox',
    async () => {
      const { Agent } = await import('@mastra/core/agent');
      const { Workspace } = await import('@mastra/core/workspace');
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      const probe = await plantHostSecrets(scratch);
      const repository = await FsSkillRepository.open({ roots: [examples] });
      const workspaces = createWorkspaceManager({
        runtime: createRuntime({ kind: 'sandbox' }),
        repository,
        baseDir: join(scratch, 'workspaces'),
      });
      const command = [...probe.commands, 'seq 3 > /workspace/out/seq.txt', 'pwd'].join('; ');
      const server = await startScriptedOpenAiServer([
        { toolCalls: [{ id: 'activate-1', name: 'skill', arguments: { name: 'python-math' } }] },
        {
          toolCalls: [
            { id: 'read-1', name: 'skill_read', arguments: { skillName: 'python-math', path: 'docs/usage.md' } },
          ],
        },
        { toolCalls: [{ id: 'exec-1', name: 'mastra_workspace_execute_command', arguments: { command } }] },
        { text: 'Done.' },
      ]);
      try {
        const workspace = await workspaces.workspace({ userId: 'demo', sessionId: 'mastra' });
        const mastraWorkspace = new Workspace({
          skills: ['skills'],
          skillSource: createRepositorySkillSource(repository),
          sandbox: createWorkspaceSandbox({ workspace }),
        });
        const provider = createOpenAICompatible({ name: 'scripted', baseURL: server.baseUrl, apiKey: 'test' });
        const agent = new Agent({
          id: 'skills',
          name: 'skills',
          instructions: assistantInstructions,
          // Mastra accepts an AI SDK model; its declared type narrows doGenerate's result where the provider's does not.
          model: provider.chatModel('scripted') as never,
          workspace: mastraWorkspace,
        });
        const result = await agent.generate('First 10 Fibonacci numbers?', { maxSteps: 6 });
        expect(result.text).toBe('Done.');

        const first = JSON.stringify(server.requests[0]?.body.messages);
        for (const summary of await repository.list()) expect(first).toContain(`<name>${summary.name}</name>`);
        const toolText = (index: number, id: string) => String(toolResultText(server.requests[index], id));
        const body = (await repository.get('python-math')).body.trim();
        expect(toolText(1, 'activate-1')).toContain(body.split('\n')[0]!);
        const usage = (await repository.readFile('python-math', 'docs/usage.md')).toString('utf8');
        expect(toolText(2, 'read-1')).toContain(usage.split('\n')[0]!);
        const output = toolText(3, 'exec-1');
        expectNoHostLeak(output);
        expect(output).toContain('/workspace');
        expect(await readFile(join(workspace.root, 'out', 'seq.txt'), 'utf8')).toBe('1\n2\n3\n');
      } finally {
        probe.remove();
        await server.close();
        await workspaces.close();
      }
    },
  );

  // The adapter imports only Mastra's types, so this runs where Mastra's agent does not load.
  it('the skill source shows only skills the model may see and refuses paths that leave a skill', async () => {
    const repository = await FsSkillRepository.open({ roots: [examples] });
    const source = createRepositorySkillSource(repository);
    expect((await source.readdir('skills')).map((entry) => entry.name).sort()).toEqual(
      (await repository.list()).map((summary) => summary.name).sort(),
    );
    expect(await source.readdir('skills/python-math')).toEqual(
      expect.arrayContaining([
        { name: 'SKILL.md', type: 'file' },
        { name: 'docs', type: 'directory' },
      ]),
    );
    expect(await source.exists('skills/python-math/../weather-tools/SKILL.md')).toBe(false);
    expect(await source.exists('skills/no-such-skill')).toBe(false);
    expect(await source.exists('elsewhere/python-math')).toBe(false);
    await expect(source.readFile('skills/python-math/../../../etc/passwd')).rejects.toThrow(/ENOENT/);
    expect(() => createRepositorySkillSource({} as never)).toThrow(/repository/);
    expect(() => createWorkspaceSandbox({ workspace: {} as never })).toThrow(/workspace/);
  });
});
