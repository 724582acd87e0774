import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exampleSkillsRoot as examples,
  offeredToolNames,
  toolResultText,
} from '../../../test/support/example-skill-conversations.js';
import { expectNoHostLeak, plantHostSecrets } from '../../../test/support/host-leak-probe.js';
import { importOptionalPeer } from '../../../test/support/optional-peer.js';
import { startScriptedOpenAiServer } from '../../../test/support/scripted-openai-server.js';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { createRuntime } from '../../runtime/create-runtime.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';

// deepagents' own agent (createDeepAgent) with skillbox's backend: its execute and file tools
// run through the real bubblewrap sandbox of one workspace.
const present =
  (await importOptionalPeer('deepagents backend', () =>
    Promise.all([import('deepagents'), import('@langchain/openai')]),
  )) !== undefined;
const { createSandboxBackend } = present ? await import('./index.js') : ({} as typeof import('./index.js'));

let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-deepagents-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe.skipIf(!present)('createSandboxBackend with the real createDeepAgent', () => {
  it("runs deepagents' execute and write_file in the sandbox: the workspace is there, the host's files and environment are not", async () => {
    const { createDeepAgent } = await import('deepagents');
    const { ChatOpenAI } = await import('@langchain/openai');
    const probe = await plantHostSecrets(scratch);
    const repository = await FsSkillRepository.open({ roots: [examples] });
    const workspaces = createWorkspaceManager({
      runtime: createRuntime({ kind: 'sandbox' }),
      repository,
      baseDir: join(scratch, 'workspaces'),
    });
    const command = [
      'cat /workspace/work/notes.txt > /workspace/out/copy.txt',
      ...probe.commands,
      'echo "cwd=$(pwd)"',
    ].join('; ');
    const server = await startScriptedOpenAiServer([
      {
        toolCalls: [
          {
            id: 'write-1',
            name: 'write_file',
            arguments: { file_path: '/workspace/work/notes.txt', content: 'from the agent\n' },
          },
        ],
      },
      { toolCalls: [{ id: 'exec-1', name: 'execute', arguments: { command } }] },
      { text: 'Done.' },
    ]);
    try {
      const workspace = await workspaces.workspace({ userId: 'demo', sessionId: 'deep' });
      const backend = await createSandboxBackend({ workspace });
      const model = new ChatOpenAI({ model: 'scripted', apiKey: 'test', configuration: { baseURL: server.baseUrl } });
      const agent = createDeepAgent({ model, backend });
      await agent.invoke({ messages: [{ role: 'user', content: 'Copy the notes.' }] });

      expect(offeredToolNames(server.requests[0])).toContain('execute');
      const output = toolResultText(server.requests[2], 'exec-1');
      expectNoHostLeak(output);
      expect(output).toContain('cwd=/workspace');
      // Written by write_file through files(), copied by the sandboxed command, read on the host.
      expect(await readFile(join(workspace.root, 'work', 'notes.txt'), 'utf8')).toBe('from the agent\n');
      expect(await readFile(join(workspace.root, 'out', 'copy.txt'), 'utf8')).toBe('from the agent\n');
    } finally {
      probe.remove();
      await server.close();
      await workspaces.close();
    }
  });

  it("createDeepAgent with the skill middleware too: skills load and materialise beside deepagents' own tools", async () => {
    const { createDeepAgent } = await import('deepagents');
    const { ChatOpenAI } = await import('@langchain/openai');
    const { createSkillMiddleware } = await import('./index.js');
    const repository = await FsSkillRepository.open({ roots: [examples] });
    const workspaces = createWorkspaceManager({
      runtime: createRuntime({ kind: 'sandbox' }),
      repository,
      baseDir: join(scratch, 'workspaces-both'),
    });
    const server = await startScriptedOpenAiServer([
      { toolCalls: [{ id: 'load-1', name: 'skill_load', arguments: { skill: 'python-math' } }] },
      { toolCalls: [{ id: 'exec-1', name: 'execute', arguments: { command: 'echo from-the-sandbox' } }] },
      { text: 'Done.' },
    ]);
    try {
      const workspace = await workspaces.workspace({ sessionId: 'both' });
      const model = new ChatOpenAI({ model: 'scripted', apiKey: 'test', configuration: { baseURL: server.baseUrl } });
      const agent = createDeepAgent({
        model,
        backend: await createSandboxBackend({ workspace }),
        middleware: [createSkillMiddleware({ repository })],
      });
      await agent.invoke({ messages: [{ role: 'user', content: 'Fibonacci?' }] });
      expect(offeredToolNames(server.requests[0])).toEqual(
        expect.arrayContaining(['skill_load', 'execute', 'write_file']),
      );
      const body = (await repository.get('python-math')).body.trim();
      expect(toolResultText(server.requests[1], 'load-1')).toContain(`[Loaded] python-math\n\n${body}`);
      expect(toolResultText(server.requests[2], 'exec-1')).toContain('from-the-sandbox');
    } finally {
      await server.close();
      await workspaces.close();
    }
  });

  it('refuses a file outside the workspace and names a bad option', async () => {
    const repository = await FsSkillRepository.open({ roots: [examples] });
    const workspaces = createWorkspaceManager({
      runtime: createRuntime({ kind: 'sandbox' }),
      repository,
      baseDir: join(scratch, 'workspaces-refuse'),
    });
    try {
      const workspace = await workspaces.workspace({ sessionId: 'refuse' });
      const backend = await createSandboxBackend({ workspace });
      const outside = join(scratch, 'planted.txt');
      expect(await backend.uploadFiles?.([[outside, new TextEncoder().encode('x')]])).toEqual([
        { path: outside, error: 'invalid_path' },
      ]);
      expect(await backend.uploadFiles?.([['/workspace/../etc/passwd', new TextEncoder().encode('x')]])).toEqual([
        { path: '/workspace/../etc/passwd', error: 'invalid_path' },
      ]);
      await expect(readFile(outside)).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(createSandboxBackend({ workspace, timeoutSeconds: 0 })).rejects.toThrow(/timeoutSeconds/);
      await expect(createSandboxBackend({} as never)).rejects.toThrow(/workspace/);
    } finally {
      await workspaces.close();
    }
  });
});
