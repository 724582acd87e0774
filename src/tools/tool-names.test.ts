import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { LocalRuntime } from '../runtime/local-runtime.js';
import { createExecutionTools } from '../workspace/tools/execution-tools.js';
import { createWorkspaceManager } from '../workspace/workspace-manager.js';
import { createSkillTools } from './create-skill-tools.js';
import { disclosureToolNames, executionToolNames, isSkillToolName } from './tool-names.js';

const temporary = mkdtempSync(path.join(tmpdir(), 'skillbox-tool-names-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

const repository = createMemorySkillRepository([
  { name: 'calc', description: 'math ops', body: 'Calc body', tools: ['publish'] },
]);

describe('the tool-name union', () => {
  it('names exactly the tools createSkillTools and createExecutionTools build', () => {
    const workspaces = createWorkspaceManager({
      runtime: new LocalRuntime(),
      repository,
      baseDir: path.join(temporary, 'workspaces'),
    });
    const executionTools = createExecutionTools({ workspaces, backgroundProcesses: true });
    expect(executionTools.map((tool) => tool.name)).toEqual([...executionToolNames]);
    const disclosureTools = createSkillTools({ repository, profile: disclosureToolNames });
    expect(disclosureTools.map((tool) => tool.name)).toEqual([...disclosureToolNames]);
    const full = createSkillTools({ repository, profile: 'full', executionTools, toolPool: ['publish'] });
    expect(full.map((tool) => tool.name).every(isSkillToolName)).toBe(true);
  });

  it('does not claim a caller tool name', () => {
    expect(isSkillToolName('publish')).toBe(false);
    expect(isSkillToolName('skill_load')).toBe(true);
    expect(isSkillToolName('workspace_exec')).toBe(true);
  });
});
