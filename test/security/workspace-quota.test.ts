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
