import { execFileSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AttachError, attachHostFile } from '../../src/cli/commands/chat-attach.js';
import { saveOutputFiles } from '../../src/cli/commands/chat-output-files.js';
import { sandboxWorks } from '../support/services.js';
import { treeFingerprint, workspaceSecurityFixture } from './workspace-fixture.js';

// `skillbox chat`'s /attach puts a host file into the session workspace, and each turn's output
// files are copied from the workspace to the output folder on the host. Both cross the boundary
// between the host and what a script (steered by the model) controls: the names and links a
// command leaves in its workspace must not make the host write or read anywhere else.
describe.runIf(process.platform === 'linux' && sandboxWorks)('chat: /attach and saved outputs stay confined', () => {
  let fixture: Awaited<ReturnType<typeof workspaceSecurityFixture>>;
  let outside: string;
  let hostFile: string;
  beforeAll(async () => {
    fixture = await workspaceSecurityFixture();
    hostFile = path.join(fixture.root, 'report.csv');
    await writeFile(hostFile, 'a,b\n1,2\n');
  });
  afterAll(async () => {
    await fixture.dispose();
  });
  afterEach(async () => {
    if (outside !== undefined) await rm(outside, { recursive: true, force: true });
  });
  const freshOutside = async () => {
    outside = await mkdtemp(path.join(os.tmpdir(), 'skillbox-chat-outside-'));
    await writeFile(path.join(outside, 'target.txt'), 'untouched');
    return outside;
  };
  const workspaceOf = (sessionId: string) =>
    fixture.workspaces.workspace({ appName: 'skillbox-chat', userId: 'tester', sessionId });

  it('refuses names that climb out of work/inputs, are absolute or hide separators', async () => {
    const workspace = await workspaceOf('names');
    const before = await treeFingerprint(fixture.root);
    for (const name of [
      '../escape.txt',
      '../../../../escape.txt',
      'a/../../b.txt',
      '/tmp/escape.txt',
      '..\\..\\x',
      'a//b',
      '.',
      'x\0y',
    ]) {
      await expect(attachHostFile({ workspace, hostPath: hostFile, name }), name).rejects.toThrow(AttachError);
    }
    expect(await treeFingerprint(fixture.root)).toBe(before);
  });

  it('does not write through a link a command planted in place of work/inputs or of the file', async () => {
    const target = await freshOutside();
    const before = await treeFingerprint(target);
    const workspace = await workspaceOf('planted');
    // The attacker's command: work/inputs becomes a link to a host folder, and a file name inside
    // a real inputs folder becomes a link to a host file.
    await fixture.exec(
      { command: `rm -rf $WORK_DIR/inputs && ln -s ${target} $WORK_DIR/inputs`, output_files: [] },
      'planted',
      { appName: 'skillbox-chat', userId: 'tester' },
    );
    await attachHostFile({ workspace, hostPath: hostFile, name: 'report.csv' }).catch((error: unknown) => error);
    expect(await treeFingerprint(target)).toBe(before);

    await fixture.exec(
      {
        command: `rm -rf $WORK_DIR/inputs && mkdir $WORK_DIR/inputs && ln -s ${target}/target.txt $WORK_DIR/inputs/report.csv`,
        output_files: [],
      },
      'planted',
      { appName: 'skillbox-chat', userId: 'tester' },
    );
    const attached = await attachHostFile({ workspace, hostPath: hostFile, name: 'report.csv' });
    expect(attached.workspacePath).toBe('work/inputs/report.csv');
    expect(await treeFingerprint(target)).toBe(before);
    // The link itself was replaced by the file.
    const placed = path.join(workspace.root, 'work/inputs/report.csv');
    expect((await lstat(placed)).isFile()).toBe(true);
    expect(await readFile(placed, 'utf8')).toBe('a,b\n1,2\n');
  });

  it('refuses a FIFO without hanging, a folder, and a file over the limit', async () => {
    const workspace = await workspaceOf('kinds');
    const fifo = path.join(fixture.root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    await expect(attachHostFile({ workspace, hostPath: fifo })).rejects.toThrow(/is not a regular file/);
    const linkToFolder = path.join(fixture.root, 'folder-link');
    await symlink(fixture.skillDir, linkToFolder);
    await expect(attachHostFile({ workspace, hostPath: linkToFolder })).rejects.toThrow(/is a folder/);
    await expect(attachHostFile({ workspace, hostPath: hostFile, maxBytes: 4 })).rejects.toThrow(
      /is 8 bytes; \/attach takes files up to 4 bytes/,
    );
  });

  it('saves outputs only below the output folder, whatever names the result carries', async () => {
    const target = await freshOutside();
    const before = await treeFingerprint(target);
    const outputDir = path.join(target, 'results');
    const workspace = await workspaceOf('outputs');
    await fixture.exec({ command: 'echo fine > $OUTPUT_DIR/ok.txt', output_files: [] }, 'outputs', {
      appName: 'skillbox-chat',
      userId: 'tester',
    });
    const names = ['../target.txt', 'out/../../target.txt', '/etc/passwd', 'out/a/../../../target.txt', 'out\\..\\x'];
    const result = await saveOutputFiles({ workspace, names: [...names, 'out/ok.txt'], outputDir });
    expect(result.saved).toEqual([path.join(outputDir, 'ok.txt')]);
    expect(result.problems).toHaveLength(names.length);
    expect(await readdir(outputDir)).toEqual(['ok.txt']);
    await rm(outputDir, { recursive: true });
    expect(await treeFingerprint(target)).toBe(before);
  });

  it('refuses an output folder that a committed link leads out of the project', async () => {
    const target = await freshOutside();
    const before = await treeFingerprint(target);
    const project = path.join(fixture.root, 'cloned-repo');
    await mkdir(project, { recursive: true });
    // The repository the user cloned commits `skillbox-output` as a link to a folder elsewhere.
    await symlink(target, path.join(project, 'skillbox-output'));
    const workspace = await workspaceOf('committed-link');
    await fixture.exec({ command: 'echo fine > $OUTPUT_DIR/ok.txt', output_files: [] }, 'committed-link', {
      appName: 'skillbox-chat',
      userId: 'tester',
    });
    await expect(
      saveOutputFiles({ workspace, names: ['out/ok.txt'], outputDir: path.join(project, 'skillbox-output'), project }),
    ).rejects.toThrow(/skillbox-output leads outside the project .* through a link; nothing was saved/);
    expect(await treeFingerprint(target)).toBe(before);
    // An output folder inside the project that is a real folder saves as before.
    const saved = await saveOutputFiles({
      workspace,
      names: ['out/ok.txt'],
      outputDir: path.join(project, 'results'),
      project,
    });
    expect(saved.saved).toEqual([path.join(project, 'results', 'ok.txt')]);
  });

  it('never copies a host file a command linked in place of an output, nor writes through links in the output folder', async () => {
    const target = await freshOutside();
    const secret = path.join(target, 'target.txt');
    const outputDir = path.join(fixture.root, 'saved');
    await mkdir(outputDir, { recursive: true });
    // Links left in the output folder: a subfolder leading out, and a file name leading out.
    await symlink(target, path.join(outputDir, 'reports'));
    await symlink(secret, path.join(outputDir, 'plain.txt'));
    const before = await treeFingerprint(target);
    const workspace = await workspaceOf('swapped');
    // An earlier run of the turn wrote the outputs; a later one swapped one for a link to a host file.
    await fixture.exec(
      {
        command: `mkdir -p $OUTPUT_DIR/reports && echo report > $OUTPUT_DIR/reports/r.txt && echo plain > $OUTPUT_DIR/plain.txt && echo x > $OUTPUT_DIR/leak.txt && ln -sf ${fixture.hostSecret} $OUTPUT_DIR/leak.txt`,
        output_files: [],
      },
      'swapped',
      { appName: 'skillbox-chat', userId: 'tester' },
    );
    const result = await saveOutputFiles({
      workspace,
      names: ['out/reports/r.txt', 'out/plain.txt', 'out/leak.txt'],
      outputDir,
    });
    expect(result.saved).toEqual([path.join(outputDir, 'plain.txt')]);
    expect(result.problems.join('\n')).toMatch(
      /out\/reports\/r.txt: .*reports is a link; nothing is written through it/,
    );
    expect(result.problems.join('\n')).toMatch(/out\/leak.txt: /);
    // plain.txt: the link was replaced by the file, the host file it pointed at is unchanged.
    expect((await lstat(path.join(outputDir, 'plain.txt'))).isFile()).toBe(true);
    expect(await readFile(path.join(outputDir, 'plain.txt'), 'utf8')).toBe('plain\n');
    expect(await treeFingerprint(target)).toBe(before);
    const saved = await readdir(outputDir);
    expect(saved.sort()).toEqual(['plain.txt', 'reports']);
    for (const name of saved) {
      const entry = path.join(outputDir, name);
      if ((await lstat(entry)).isFile()) expect(await readFile(entry, 'utf8')).not.toContain('host secret');
    }
  });
});
