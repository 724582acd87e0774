import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceSecurityFixture } from './workspace-fixture.js';

// `hostInputs: [folder]` lets inputs name host paths below that folder, and nothing else.
describe.runIf(process.platform === 'linux')('workspace security: the hostInputs allow-list', () => {
  let fixture: Awaited<ReturnType<typeof workspaceSecurityFixture>>;
  let allowed: string;
  beforeAll(async () => {
    allowed = await mkdtemp(path.join(os.tmpdir(), 'skillbox-ws-shared-'));
    fixture = await workspaceSecurityFixture({ hostInputs: [allowed] });
    await mkdir(path.join(allowed, 'folder'), { recursive: true });
    await writeFile(path.join(allowed, 'data.csv'), 'a,b\n1,2\n');
    await writeFile(path.join(allowed, 'folder', 'ok.txt'), 'fine');
    // Links a user (or anything else that writes the shared folder) left inside it.
    await symlink(fixture.hostSecret, path.join(allowed, 'secret-link.txt'));
    await symlink(path.dirname(fixture.hostSecret), path.join(allowed, 'up'));
    await symlink(fixture.hostSecret, path.join(allowed, 'folder', 'leak.txt'));
  });
  afterAll(async () => {
    await fixture.dispose();
    await rm(allowed, { recursive: true, force: true });
  });

  it('stages files really inside the allowed folder', async () => {
    const result = await fixture.run({
      command: 'cat inputs/data.csv inputs/folder/ok.txt',
      inputs: [{ from: `host://${allowed}/data.csv` }, { from: `${allowed}/folder` }],
      output_files: [],
    });
    expect(result.stdout).toBe('a,b\n1,2\nfine');
  });

  it('refuses a link inside the allowed folder that leads out, by copy or by link', async () => {
    for (const from of [`${allowed}/secret-link.txt`, `host://${allowed}/up/host-secret.txt`, `${allowed}/up`]) {
      await expect(fixture.run({ command: 'cat inputs/*', inputs: [{ from }], output_files: [] })).rejects.toThrow(
        /leads out of the host folders/,
      );
    }
    await expect(
      fixture.run({ command: 'true', inputs: [{ from: `${allowed}/secret-link.txt`, mode: 'link' }] }),
    ).rejects.toThrow(/leads out of the host folders|runtime cannot see host paths/);
  });

  it('leaves out links that lead out of a staged folder', async () => {
    const result = await fixture.run({
      command: 'ls inputs/folder; cat inputs/folder/leak.txt; true',
      inputs: [{ from: `${allowed}/folder` }],
      output_files: ['inputs/folder/**'],
    });
    expect(JSON.stringify(result)).not.toContain('host secret');
    expect(result.stdout).toBe('ok.txt\n');
  });
});
