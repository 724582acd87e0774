import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../support/services.js';
import { treeFingerprint, workspaceSecurityFixture } from './workspace-fixture.js';

// Two sessions on one manager: neither can see or change the other's workspace.
describe.runIf(sandboxWorks)('workspace security: sessions are separate', () => {
  let fixture: Awaited<ReturnType<typeof workspaceSecurityFixture>>;
  let victimRoot: string;
  beforeAll(async () => {
    fixture = await workspaceSecurityFixture();
    const written = await fixture.run({ command: 'echo victim secret > out/secret.txt' }, 'victim');
    expect(written.output_files.map((file) => file.name)).toEqual(['out/secret.txt']);
    victimRoot = (await fixture.workspaces.workspace('victim')).root;
  });
  afterAll(async () => {
    await fixture.dispose();
  });

  it("cannot read or list another session's workspace, by host path or by climbing", async () => {
    const before = await treeFingerprint(victimRoot);
    const attackerRoot = (await fixture.workspaces.workspace('attacker')).root;
    const sibling = path.relative(attackerRoot, victimRoot);
    const result = await fixture.exec({
      command: [
        `cat '${victimRoot}/out/secret.txt'`,
        `cat '/workspace/${sibling}/out/secret.txt'`,
        `ls '${path.dirname(victimRoot)}'`,
        'ls /workspace/..',
        `echo tamper > '${victimRoot}/out/secret.txt'`,
        'true',
      ].join('; '),
      output_files: [`${victimRoot}/out/secret.txt`, `/workspace/${sibling}/out/*`],
    });
    expect(JSON.stringify(result)).not.toContain('victim secret');
    expect(result.stdout).not.toContain(path.basename(victimRoot));
    expect(result.output_files).toEqual([]);
    expect(await treeFingerprint(victimRoot)).toBe(before);
  });

  it("cannot reach another session's files through inputs", async () => {
    await expect(fixture.run({ command: 'true', inputs: [{ from: `${victimRoot}/out/secret.txt` }] })).rejects.toThrow(
      /host paths are not allowed/,
    );
    await expect(
      fixture.run({
        command: 'true',
        inputs: [{ from: `workspace://../${path.basename(victimRoot)}/out/secret.txt` }],
      }),
    ).rejects.toThrow(/climbs out/);
    await expect(fixture.run({ command: 'true', inputs: [{ from: 'artifact://out/secret.txt' }] })).rejects.toThrow(
      /not found/,
    );
  });
});
