import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { LocalRuntime } from '../../src/runtime/local-runtime.js';
import { createInMemoryStateView } from '../../src/state/in-memory-state-view.js';
import { loadedKey } from '../../src/state/state-keys.js';
import type { ToolDefinition } from '../../src/tools/types.js';
import { createExecutionTools } from '../../src/workspace/tools/execution-tools.js';
import type { SkillRunResult } from '../../src/workspace/tools/run-result.js';
import { createWorkspaceManager } from '../../src/workspace/workspace-manager.js';
import { sandboxWorks } from '../support/services.js';
import { treeFingerprint, workspaceSecurityFixture } from './workspace-fixture.js';

// editor_text, outputs and artifact_prefix of skill_run: none of them writes, reads or names
// anything outside the session's workspace and artifact scope.
describe.runIf(sandboxWorks)('skill_run fields in the sandbox', () => {
  let fixture: Awaited<ReturnType<typeof workspaceSecurityFixture>>;
  beforeAll(async () => {
    fixture = await workspaceSecurityFixture();
  });
  afterAll(async () => {
    await fixture.dispose();
  });

  it('editor_text replaces links planted at its own files instead of writing through them', async () => {
    const workspace = await fixture.workspaces.workspace('editor-links');
    await mkdir(path.join(workspace.root, 'work', '.skillbox'), { recursive: true });
    await symlink(fixture.hostSecret, path.join(workspace.root, 'work', '.skillbox', 'editor-input.txt'));
    await symlink(fixture.hostSecret, path.join(workspace.root, 'work', '.skillbox', 'editor.sh'));
    const result = await fixture.run(
      { command: '$EDITOR ../../out/note.txt', editor_text: 'model text', output_files: ['out/note.txt'] },
      'editor-links',
    );
    expect(result.exit_code).toBe(0);
    expect(result.output_files[0]?.content).toBe('model text');
    expect(await readFile(fixture.hostSecret, 'utf8')).toBe('host secret');
    expect((await lstat(path.join(workspace.root, 'work', '.skillbox', 'editor-input.txt'))).isFile()).toBe(true);
  });

  it('editor_text refuses a folder of its own that a command turned into a link out', async () => {
    const workspace = await fixture.workspaces.workspace('editor-folder');
    const hostFolder = await mkdtemp(path.join(fixture.root, 'host-folder-'));
    await mkdir(path.join(workspace.root, 'work'), { recursive: true });
    await symlink(hostFolder, path.join(workspace.root, 'work', '.skillbox'));
    const before = await treeFingerprint(hostFolder);
    await expect(
      fixture.run({ command: '$EDITOR x', editor_text: 'model text', output_files: [] }, 'editor-folder'),
    ).rejects.toThrow(/skill_run: /);
    expect(await treeFingerprint(hostFolder)).toBe(before);
  });

  it("the editor never writes through a target link, into the skill's copy, or out of the workspace", async () => {
    const result = await fixture.run(
      {
        command: [
          `ln -s '${fixture.hostSecret}' ../../out/planted.txt`,
          '$EDITOR ../../out/planted.txt; echo "link:$?"',
          '$EDITOR scripts/probe.sh; echo "copy:$?"',
          '$EDITOR ../../../etc/evil; echo "climb:$?"',
          '$EDITOR /tmp/evil; echo "tmp:$?"',
          'cat scripts/probe.sh',
        ].join('; '),
        editor_text: 'pwned',
        output_files: [],
      },
      'editor-targets',
    );
    expect(result.stdout).toBe('link:0\ncopy:2\nclimb:2\ntmp:2\necho probe\n');
    expect(await readFile(fixture.hostSecret, 'utf8')).toBe('host secret');
    const workspace = await fixture.workspaces.workspace('editor-targets');
    // The link itself was replaced by a file in the workspace.
    expect((await lstat(path.join(workspace.root, 'out', 'planted.txt'))).isFile()).toBe(true);
  });

  it('outputs globs that point out return and save nothing from outside', async () => {
    const result = await fixture.run(
      {
        command: 'true',
        outputs: {
          globs: [
            '/etc/passwd',
            fixture.hostSecret,
            '../../../host-secret.txt',
            '$WORKSPACE_DIR/../../host-secret.txt',
            '$OUTPUT_DIR/../../*',
            '/workspace/../etc/hostname',
          ],
          inline: true,
          save: true,
        },
      },
      'outputs-escape',
    );
    expect(result.output_files).toEqual([]);
    expect(result.artifact_files).toBeUndefined();
    expect(JSON.stringify(result)).not.toContain('host secret');
    expect(result.warnings.length).toBeGreaterThan(0);
  });

  it('outputs do not follow a link planted in out/ to a host file', async () => {
    const workspace = await fixture.workspaces.workspace('outputs-link');
    await symlink(fixture.hostSecret, path.join(workspace.root, 'out', 'host-link.txt'));
    const result = await fixture.run(
      { command: 'true', outputs: { globs: ['out/**'], inline: true, save: true } },
      'outputs-link',
    );
    expect(result.output_files).toEqual([]);
    expect(JSON.stringify(result)).not.toContain('host secret');
  });

  it('artifact_prefix and outputs.name_template with ../ are refused before anything runs or is saved', async () => {
    const artifacts = path.join(fixture.root, 'workspaces', 'artifacts');
    await mkdir(artifacts, { recursive: true });
    const before = await treeFingerprint(artifacts);
    const marker = 'touch ../../out/ran';
    for (const prefix of ['../', '../../escape-', '..', '/abs-', 'a/../../b']) {
      await expect(
        fixture.run(
          { command: marker, save_as_artifacts: true, artifact_prefix: prefix, output_files: ['out/*'] },
          'prefix',
        ),
      ).rejects.toThrow(`artifact_prefix "${prefix}" refused`);
      await expect(
        fixture.run({ command: marker, outputs: { globs: ['out/*'], save: true, name_template: prefix } }, 'prefix'),
      ).rejects.toThrow(`outputs.name_template "${prefix}" refused`);
    }
    expect(await treeFingerprint(artifacts)).toBe(before);
    const workspace = await fixture.workspaces.workspace('prefix');
    await expect(lstat(path.join(workspace.root, 'out', 'ran'))).rejects.toThrow();
  });
});

// On the local runtime nothing confines the command; the editor's own checks are what keep the
// model's text from reaching host files through it.
describe('skill_run editor_text on the local runtime', () => {
  let root: string;
  let run: (input: Record<string, unknown>) => Promise<SkillRunResult>;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'skillbox-editor-local-'));
    await mkdir(path.join(root, 'skills', 'probe'), { recursive: true });
    await writeFile(path.join(root, 'skills', 'probe', 'SKILL.md'), '---\nname: probe\ndescription: Probe.\n---\n');
    const workspaces = createWorkspaceManager({
      runtime: new LocalRuntime(),
      repository: await createFsSkillRepository({ roots: [path.join(root, 'skills')] }),
      baseDir: path.join(root, 'workspaces'),
      stageMode: 'link',
    });
    const [skillRun] = createExecutionTools({ workspaces }) as [ToolDefinition];
    const context = {
      sessionId: 's',
      agentName: 'agent',
      state: createInMemoryStateView({ [loadedKey('agent', 'probe')]: '1' }),
    };
    run = (input) =>
      skillRun.execute(skillRun.inputSchema.parse({ skill: 'probe', ...input }), context) as Promise<SkillRunResult>;
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('does not write through a link to a host file, nor into a link-staged skill source', async () => {
    const secret = path.join(root, 'host.txt');
    await writeFile(secret, 'host');
    const source = path.join(root, 'skills', 'probe', 'SKILL.md');
    const sourceBefore = await readFile(source, 'utf8');
    const result = await run({
      command: [
        `ln -s '${secret}' ../../out/planted.txt`,
        '$EDITOR ../../out/planted.txt; echo "link:$?"',
        `ln -s '${path.dirname(secret)}' ../../work/up`,
        '$EDITOR ../../work/up/host.txt; echo "folder-link:$?"',
        '$EDITOR SKILL.md; echo "source:$?"',
      ].join('; '),
      editor_text: 'pwned',
      env: { WORKSPACE_DIR: '/' },
      output_files: [],
    });
    expect(result.stdout).toBe('link:0\nfolder-link:2\nsource:2\n');
    expect(await readFile(secret, 'utf8')).toBe('host');
    expect(await readFile(source, 'utf8')).toBe(sourceBefore);
  });
});
