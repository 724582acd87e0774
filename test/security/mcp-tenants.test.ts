import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createSkillMcpServer } from '../../src/integrations/mcp/skill-mcp-server.js';
import { filterSkills } from '../../src/repository/filter-skills.js';
import { createFsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { SandboxRuntime } from '../../src/runtime/sandbox-runtime.js';
import { createExecutionTools } from '../../src/workspace/tools/execution-tools.js';
import { createWorkspaceManager } from '../../src/workspace/workspace-manager.js';

// An application serving several users over MCP from one workspace manager may give their
// connections the same session id (its own numbering, a client-chosen id). Each connection's
// visibility context names its user: the workspace must follow it, or one user reads the other's
// files, including copies of skills only the other may see.
describe.runIf(process.platform === 'linux')('MCP security: users given the same session id', () => {
  let root: string;
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("never share a workspace: bob reads neither alice's outputs nor her staged hidden skill", async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'skillbox-mcp-tenants-'));
    await mkdir(path.join(root, 'skills', 'payroll'), { recursive: true });
    await writeFile(
      path.join(root, 'skills', 'payroll', 'SKILL.md'),
      '---\nname: payroll\ndescription: Pay.\n---\nx\n',
    );
    await writeFile(path.join(root, 'skills', 'payroll', 'salaries.csv'), 'ceo,HIDDEN-SALARY\n');
    const repository = filterSkills(
      await createFsSkillRepository({ roots: [path.join(root, 'skills')] }),
      (summary, context) => summary.name !== 'payroll' || context?.userId === 'alice',
    );
    const workspaces = createWorkspaceManager({
      runtime: new SandboxRuntime(),
      repository,
      baseDir: path.join(root, 'workspaces'),
    });
    const connect = async (userId: string) => {
      const served = await createSkillMcpServer({
        repository,
        profile: 'full',
        executionTools: createExecutionTools({ workspaces }),
        sessionId: 'session-1',
        skillContext: { userId },
        log: () => undefined,
      });
      const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: userId, version: '1.0.0' });
      await served.server.connect(serverTransport);
      await client.connect(clientTransport);
      return async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
      };
    };

    const alice = await connect('alice');
    await alice('skill_load', { skill: 'payroll' });
    expect(
      await alice('skill_run', { skill: 'payroll', command: 'echo ALICE-SECRET > $OUTPUT_DIR/secret.txt' }),
    ).toMatch(/"exit_code": 0/);
    const bob = await connect('bob');
    const seen = await bob('workspace_exec', {
      command: 'cat out/secret.txt skills/payroll/salaries.csv; ls -R .; true',
      output_files: ['out/**', 'skills/**'],
    });
    expect(seen).toMatch(/"exit_code": 0/);
    expect(seen).not.toContain('ALICE-SECRET');
    expect(seen).not.toContain('HIDDEN-SALARY');
    for (const userId of ['alice', 'bob']) await workspaces.cleanup({ userId, sessionId: 'session-1' });
  }, 60_000);
});
