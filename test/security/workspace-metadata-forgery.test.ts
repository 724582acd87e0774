import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceSecurityFixture } from './workspace-fixture.js';

// metadata.json lives in the workspace, so a command can rewrite it: nothing the host decides may rest on it.
describe.runIf(process.platform === 'linux')('workspace security: metadata.json written by a command', () => {
  let fixture: Awaited<ReturnType<typeof workspaceSecurityFixture>>;
  beforeAll(async () => {
    fixture = await workspaceSecurityFixture();
  });
  afterAll(async () => {
    await fixture.dispose();
  });

  it("cannot keep a workspace from expiring, claim another session's identity, or leave host temp files behind", async () => {
    const victim = await fixture.workspaces.workspace('victim');
    const forged = JSON.stringify({
      version: 1,
      session_id: 'victim',
      created_at: '2999-01-01T00:00:00.000Z',
      updated_at: '2999-01-01T00:00:00.000Z',
      last_access: '2999-01-01T00:00:00.000Z',
      skills: { probe: 'x' },
      inputs: 'x',
      runs: [1],
    });
    // A folder in its place also stops the host's own rewrite after the run (rename onto a folder fails).
    const result = await fixture.exec({
      command: `rm -f metadata.json; mkdir metadata.json; printf '%s' '${forged}' > metadata.json/x; ls -a; true`,
      output_files: [],
    });
    expect(result.exit_code).toBe(0);
    // Not one host temporary file was ever visible to the command.
    expect(result.stdout).not.toMatch(/\.metadata\.|\.input-|\.staging-|\.retired-/);
    const attacker = await fixture.workspaces.workspace('attacker');
    // The forged id does not make the attacker's folder the victim's.
    expect((await fixture.workspaces.workspace('victim')).root).toBe(victim.root);
    const removed = await fixture.workspaces.cleanupExpired(Date.now() + 48 * 60 * 60 * 1000);
    expect(removed.sort()).toEqual(['attacker', 'victim']);
    expect(
      await lstat(attacker.root).then(
        () => true,
        () => false,
      ),
    ).toBe(false);
    const base = path.dirname(attacker.root);
    expect((await readdir(base)).filter((name) => name.startsWith('ws_'))).toEqual([]);
  }, 60_000);
});
