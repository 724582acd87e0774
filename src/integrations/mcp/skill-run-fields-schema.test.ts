import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { createRuntime } from '../../runtime/create-runtime.js';
import { createExecutionTools } from '../../workspace/tools/execution-tools.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';
import { createSkillMcpServer } from './skill-mcp-server.js';

let root: string | undefined;
afterEach(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

describe('skill_run over MCP', () => {
  it('lists editor_text, outputs and artifact_prefix with their descriptions in the input schema', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'skillbox-mcp-run-fields-'));
    await mkdir(path.join(root, 'skills', 'tool'), { recursive: true });
    await writeFile(path.join(root, 'skills', 'tool', 'SKILL.md'), '---\nname: tool\ndescription: Runs things.\n---\n');
    const repository = await FsSkillRepository.open({ roots: [path.join(root, 'skills')] });
    const executionTools = createExecutionTools({
      workspaces: createWorkspaceManager({
        runtime: createRuntime({ kind: 'local' }),
        repository,
        baseDir: path.join(root, 'workspaces'),
      }),
    });
    const served = await createSkillMcpServer({ repository, profile: 'full', executionTools, log: () => undefined });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'run-fields-test', version: '1.0.0' });
    await served.server.connect(serverTransport);
    await client.connect(clientTransport);
    try {
      const skillRun = (await client.listTools()).tools.find((tool) => tool.name === 'skill_run');
      const properties = skillRun?.inputSchema.properties as Record<
        string,
        { description?: string; properties?: object }
      >;
      expect(properties.editor_text?.description).toContain('$EDITOR');
      expect(properties.artifact_prefix?.description).toContain('no "/" or ".."');
      expect(properties.outputs?.description).toContain('caps can only lower');
      expect(Object.keys(properties.outputs?.properties ?? {})).toEqual([
        'globs',
        'inline',
        'save',
        'name_template',
        'max_files',
        'max_file_bytes',
        'max_total_bytes',
      ]);
    } finally {
      await client.close();
    }
  });
});
