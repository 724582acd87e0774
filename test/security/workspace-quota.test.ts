import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveExecutionOptions } from '../../src/workspace/tools/execution-options.js';
import { workspaceSecurityFixture } from './workspace-fixture.js';

/**
 * A command may fill the disk or the inode table of the host from inside its workspace (issue 8:
 * one run kept 3 GiB and 100,000 files). The workspace quota stops it while it runs and the
 * result names the limit.
 */
describe.runIf(process.platform === 'linux')('workspace disk and file quota', () => {
  let fixture: Awaited<ReturnType<typeof workspaceSecurityFixture>> | undefined;
  afterEach(async () => {
    await fixture?.dispose();
    fixture = undefined;
  });

  it('stops a command that keeps writing data and reports limits_hit disk', async () => {
    fixture = await workspaceSecurityFixture({ workspaceQuota: { maxBytes: 32 * 1024 * 1024 } });
    const result = await fixture.run({
      command: 'i=0; while true; do head -c 1048576 /dev/zero > "$WORK_DIR/f$i"; i=$((i+1)); sleep 0.02; done',
      timeout: 25,
      output_files: [],
    });
    expect(result.timed_out).toBe(false);
    expect(result.limits_hit).toEqual(['disk']);
    expect(result.warnings.join('\n')).toMatch(/command stopped: the workspace holds more than 33554432 bytes of disk/);
    expect(result.duration_ms).toBeLessThan(15_000);
  });

  it('stops a command that keeps creating files and reports limits_hit files', async () => {
    fixture = await workspaceSecurityFixture({ workspaceQuota: { maxFiles: 2_000 } });
    const result = await fixture.run({
      command: 'i=0; while true; do : > "$WORK_DIR/n$i"; i=$((i+1)); done',
      timeout: 25,
      output_files: [],
    });
    expect(result.timed_out).toBe(false);
    expect(result.limits_hit).toEqual(['files']);
    expect(result.warnings.join('\n')).toMatch(/more than 2000 files/);
  });

  it('reports a run that filled the workspace faster than the watch, and lets the next run clean up', async () => {
    fixture = await workspaceSecurityFixture({ workspaceQuota: { maxBytes: 8 * 1024 * 1024 } });
    const filled = await fixture.run({ command: 'head -c 20000000 /dev/urandom > "$WORK_DIR/big"', output_files: [] });
    expect(filled.limits_hit).toEqual(['disk']);
    const cleaned = await fixture.run({ command: 'rm -f "$WORK_DIR/big"', output_files: [] });
    expect(cleaned.exit_code).toBe(0);
    expect(cleaned.limits_hit).toBeUndefined();
  });

  it('counts data nested deeper than one path can name (longer than PATH_MAX)', async () => {
    fixture = await workspaceSecurityFixture({ workspaceQuota: { maxBytes: 8 * 1024 * 1024 } });
    // 25 folders of 200-letter names: a path to the file is over 5,000 bytes, which no single
    // lstat can take, yet a command reaches it with relative steps.
    const nested = await fixture.run({
      command:
        'n=$(printf "a%.0s" $(seq 200)); p="$n/$n/$n/$n/$n"; cd "$WORK_DIR" || exit 1; ' +
        'for i in 1 2 3 4 5; do mkdir -p "$p" && cd -P "$p" || exit 1; done; head -c 20000000 /dev/urandom > big',
      output_files: [],
    });
    // Stopped by the watch while it wrote, or reported by the count after it: either way, counted.
    expect(nested.limits_hit).toEqual(['disk']);
    expect(nested.warnings.join('\n')).toMatch(/more than 8388608 bytes of disk/);
  });

  // The host walks the workspace as the user it runs as, and the command's files are that user's
  // own: as a non-root host (.ci/run runs this file as uid 65534) a folder the command made unreadable
  // or unsearchable kept the walk out, and its bytes went uncounted. As root the permissions do not
  // bind the walk; the folder is counted and its mode repaired either way.
  it.each([
    ['no permission at all (chmod 000)', '000'],
    ['no search permission (chmod 600)', '600'],
    ['no read permission (chmod 300)', '300'],
  ])('counts data in a folder with %s, and leaves it removable', async (_, mode) => {
    fixture = await workspaceSecurityFixture({ workspaceQuota: { maxBytes: 8 * 1024 * 1024 } });
    const hidden = await fixture.run({
      command: `mkdir -p "$WORK_DIR/hide/deeper" && head -c 20000000 /dev/urandom > "$WORK_DIR/hide/deeper/big" && chmod ${mode} "$WORK_DIR/hide/deeper" "$WORK_DIR/hide"`,
      output_files: [],
    });
    // Stopped by the watch while it wrote, or reported by the count after it: either way, counted.
    expect(hidden.limits_hit).toEqual(['disk']);
    expect(hidden.warnings.join('\n')).toMatch(/more than 8388608 bytes of disk/);
    // The next command can clean up what the last one hid.
    const cleaned = await fixture.run({ command: 'rm -rf "$WORK_DIR/hide"', output_files: [] });
    expect(cleaned.exit_code).toBe(0);
    expect(cleaned.limits_hit).toBeUndefined();
  });

  it('counts a workspace whose command made the workspace folder itself unreadable, and removes it', async () => {
    fixture = await workspaceSecurityFixture({ workspaceQuota: { maxBytes: 8 * 1024 * 1024 } });
    const hidden = await fixture.run({
      command:
        'head -c 20000000 /dev/urandom > "$WORK_DIR/big" && mkdir "$WORK_DIR/locked" && chmod 000 "$WORK_DIR/locked" "$WORK_DIR" "$WORK_DIR/.."',
      output_files: [],
    });
    expect(hidden.limits_hit).toEqual(['disk']);
    const workspaceFolders = async () =>
      (await readdir(path.join(fixture!.root, 'workspaces'))).filter((name) => name.startsWith('ws_'));
    expect(await workspaceFolders()).toHaveLength(1);
    expect(await fixture.workspaces.cleanup('attacker')).toBe(true);
    expect(await workspaceFolders()).toEqual([]);
  });

  it('removes a workspace whose command locked its folders, with no quota walk to repair them first', async () => {
    fixture = await workspaceSecurityFixture({ workspaceQuota: { maxBytes: Infinity, maxFiles: Infinity } });
    const locked = await fixture.run({
      command:
        'mkdir -p "$WORK_DIR/a/b" && : > "$WORK_DIR/a/b/f" && chmod 000 "$WORK_DIR/a/b" "$WORK_DIR/a" "$WORK_DIR/.."',
      output_files: [],
    });
    expect(locked.exit_code).toBe(0);
    expect(await fixture.workspaces.cleanup('attacker')).toBe(true);
    expect((await readdir(path.join(fixture.root, 'workspaces'))).filter((name) => name.startsWith('ws_'))).toEqual([]);
  });

  it('has defaults a user would expect, and refuses nonsense', async () => {
    fixture = await workspaceSecurityFixture();
    expect(resolveExecutionOptions({ workspaces: fixture.workspaces }).workspaceQuota).toEqual({
      maxBytes: 1024 * 1024 * 1024,
      maxFiles: 50_000,
    });
    expect(
      resolveExecutionOptions({ workspaces: fixture.workspaces, workspaceQuota: { maxFiles: Infinity } }).workspaceQuota
        .maxFiles,
    ).toBe(Infinity);
    expect(() =>
      resolveExecutionOptions({ workspaces: fixture!.workspaces, workspaceQuota: { maxBytes: -1 } }),
    ).toThrow(/workspaceQuota.maxBytes/);
  });
});
