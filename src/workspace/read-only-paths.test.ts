import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../config/config-error.js';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { LocalRuntime } from '../runtime/local-runtime.js';
import { createExecutionTools } from './tools/execution-tools.js';
import { createWorkspaceManager } from './workspace-manager.js';

let temporary: string;
const repository = createMemorySkillRepository([{ name: 'one', description: 'One.', body: 'b' }]);

beforeEach(async () => {
  temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-read-only-'));
  await mkdir(path.join(temporary, 'tools'));
  await writeFile(path.join(temporary, 'tools', 'data.txt'), 'shared');
});
afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

describe('readOnlyPaths', () => {
  const manager = (readOnlyPaths: unknown) =>
    createWorkspaceManager({
      runtime: new LocalRuntime(),
      repository,
      baseDir: path.join(temporary, 'base'),
      readOnlyPaths: readOnlyPaths as string[],
    });

  it('keeps valid paths, canonical', () => {
    expect(manager([path.join(temporary, 'tools', '..', 'tools')]).readOnlyPaths).toEqual([
      path.join(temporary, 'tools'),
    ]);
  });

  it.each([
    [['tools'], /readOnlyPaths\[0\].*must be an absolute host path/],
    [['/no/such/folder'], /"\/no\/such\/folder" does not exist/],
    [['/'], /is the root folder/],
    ['tools', /must be a list/],
  ])('refuses %j', (paths, message) => {
    expect(() => manager(paths)).toThrow(SkillboxConfigError);
    expect(() => manager(paths)).toThrow(message);
    expect(() => manager(paths)).toThrow(/^createWorkspaceManager: option "readOnlyPaths/);
  });

  it('refuses a path inside the workspace folder or holding it, in the manager and in the tools', async () => {
    await mkdir(path.join(temporary, 'base', 'ws'), { recursive: true });
    expect(() => manager([path.join(temporary, 'base', 'ws')])).toThrow(/is inside the workspace folder/);
    expect(() => manager([temporary])).toThrow(/holds the workspace folder/);
    const workspaces = manager([]);
    expect(() => createExecutionTools({ workspaces, readOnlyPaths: [temporary] })).toThrow(
      /^createExecutionTools: option "readOnlyPaths\[0\]" .* holds the workspace folder/,
    );
    expect(() => createExecutionTools({ workspaces, readOnlyPaths: [path.join(temporary, 'tools')] })).not.toThrow();
  });
});
