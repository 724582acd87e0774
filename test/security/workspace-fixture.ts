import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { removeTree } from '../../src/runtime/remove-tree.js';
import { SandboxRuntime } from '../../src/runtime/sandbox-runtime.js';
import { createInMemoryStateView } from '../../src/state/in-memory-state-view.js';
import { loadedKey } from '../../src/state/state-keys.js';
import type { ToolContext, ToolDefinition } from '../../src/tools/types.js';
import type { ExecutionToolsOptions } from '../../src/workspace/tools/execution-options.js';
import { createExecutionTools } from '../../src/workspace/tools/execution-tools.js';
import type { SkillRunResult } from '../../src/workspace/tools/run-result.js';
import { createWorkspaceManager } from '../../src/workspace/workspace-manager.js';

/**
 * A skills folder with one skill, a workspace manager on the sandbox runtime, and the execution
 * tools with the skill loaded for any session asked for. Everything lives in one temporary folder.
 */
export async function workspaceSecurityFixture(toolOptions: Omit<ExecutionToolsOptions, 'workspaces'> = {}) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'skillbox-ws-security-'));
  const skillDir = path.join(root, 'skills', 'probe');
  await mkdir(path.join(skillDir, 'scripts'), { recursive: true });
  await writeFile(
    path.join(skillDir, 'SKILL.md'),
    '---\nname: probe\ndescription: Probes the sandbox.\n---\nRun scripts/probe.sh\n',
  );
  await writeFile(path.join(skillDir, 'scripts', 'probe.sh'), 'echo probe\n', { mode: 0o755 });
  const hostSecret = path.join(root, 'host-secret.txt');
  await writeFile(hostSecret, 'host secret');
  const repository = await createFsSkillRepository({ roots: [path.join(root, 'skills')] });
  const workspaces = createWorkspaceManager({
    runtime: new SandboxRuntime(),
    repository,
    baseDir: path.join(root, 'workspaces'),
  });
  const [skillRun, workspaceExec] = createExecutionTools({ ...toolOptions, workspaces }) as [
    ToolDefinition,
    ToolDefinition,
  ];
  const contextFor = (sessionId: string, owner: { userId?: string; appName?: string } = {}): ToolContext => ({
    sessionId,
    ...owner,
    agentName: 'agent',
    state: createInMemoryStateView({ [loadedKey('agent', 'probe')]: '1' }),
  });
  const run = (
    input: Record<string, unknown>,
    sessionId = 'attacker',
    owner: { userId?: string; appName?: string } = {},
  ) =>
    skillRun.execute(
      skillRun.inputSchema.parse({ skill: 'probe', ...input }),
      contextFor(sessionId, owner),
    ) as Promise<SkillRunResult>;
  const exec = (
    input: Record<string, unknown>,
    sessionId = 'attacker',
    owner: { userId?: string; appName?: string } = {},
  ) =>
    workspaceExec.execute(
      workspaceExec.inputSchema.parse(input),
      contextFor(sessionId, owner),
    ) as Promise<SkillRunResult>;
  return {
    root,
    skillDir,
    hostSecret,
    workspaces,
    run,
    exec,
    // removeTree, not fs.rm: an attack may leave a tree deeper than one path can name.
    dispose: () => removeTree(root),
  };
}

/** Paths, modes and contents of every file below `folder`: equal before and after means untouched. */
export async function treeFingerprint(folder: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (relative: string): Promise<void> => {
    const entries = (await readdir(path.join(folder, relative), { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    for (const entry of entries) {
      const child = path.join(relative, entry.name);
      hash.update(`${child}\0`);
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) hash.update(await readFile(path.join(folder, child)));
    }
  };
  await walk('');
  return hash.digest('hex');
}
