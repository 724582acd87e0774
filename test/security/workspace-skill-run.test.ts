import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SkillToolError } from '../../src/tools/errors.js';
import { sandboxWorks } from '../support/services.js';
import { treeFingerprint, workspaceSecurityFixture } from './workspace-fixture.js';

// skill_run and workspace_exec on the sandbox runtime: nothing of the host is reachable or changed.
describe.runIf(sandboxWorks)('workspace security: skill_run in the sandbox', () => {
  let fixture: Awaited<ReturnType<typeof workspaceSecurityFixture>>;
  beforeAll(async () => {
    fixture = await workspaceSecurityFixture();
  });
  afterAll(async () => {
    await fixture.dispose();
  });

  it('cannot change the source skill, by its copy or by its host path', async () => {
    const before = await treeFingerprint(fixture.skillDir);
    const result = await fixture.run({
      command: [
        'echo pwned > scripts/probe.sh',
        'rm -f SKILL.md',
        `echo pwned > '${fixture.skillDir}/scripts/probe.sh'`,
        `rm -f '${fixture.skillDir}/SKILL.md'`,
        'touch "$SKILLS_DIR/../../skills/probe/new"',
        'true',
      ].join('; '),
      output_files: [],
    });
    expect(result.exit_code).toBe(0);
    expect(await treeFingerprint(fixture.skillDir)).toBe(before);
    expect(await readFile(path.join(fixture.skillDir, 'scripts', 'probe.sh'), 'utf8')).toBe('echo probe\n');
  });

  it('returns nothing from outside for output globs that point out', async () => {
    const result = await fixture.run({
      command: 'true',
      output_files: [
        '/etc/passwd',
        fixture.hostSecret,
        '../../../host-secret.txt',
        '$WORKSPACE_DIR/../../host-secret.txt',
        '$OUTPUT_DIR/../../*',
        '/workspace/../etc/hostname',
      ],
    });
    expect(result.output_files).toEqual([]);
    expect(JSON.stringify(result)).not.toContain('host secret');
    expect(result.warnings.length).toBeGreaterThan(0);
  });

  it('does not follow output links that lead out, planted inside the sandbox or by a host-side link', async () => {
    const workspace = await fixture.workspaces.workspace('attacker');
    await symlink(fixture.hostSecret, path.join(workspace.root, 'out', 'host-link.txt'));
    await symlink(path.dirname(fixture.hostSecret), path.join(workspace.root, 'out', 'host-dir'));
    const result = await fixture.run({
      command: 'ln -sf /etc/passwd out/passwd.txt; ln -sfn / out/rootfs; true',
      output_files: ['out/**', 'out/host-dir/host-secret.txt', 'out/rootfs/etc/passwd'],
    });
    expect(result.output_files).toEqual([]);
    const text = JSON.stringify(result);
    expect(text).not.toContain('host secret');
    expect(text).not.toContain('root:x:0');
  });

  it('refuses a cwd that climbs out, and an input destination that climbs out or goes through a planted link', async () => {
    const hostFolder = path.dirname(fixture.hostSecret);
    const before = await readdir(hostFolder);
    for (const cwd of ['../../..', '/', '/etc', `${hostFolder}`, '$WORK_DIR/../..']) {
      await expect(fixture.run({ command: 'touch climbed', cwd }), cwd).rejects.toThrow(SkillToolError);
    }
    await fixture.run({ command: 'echo data > work/data.txt', output_files: [] });
    for (const to of ['../../escape.txt', '/escape.txt', `${hostFolder}/escape.txt`, '$WORKSPACE_DIR/../escape.txt']) {
      await expect(
        fixture.run({ command: 'true', inputs: [{ from: 'workspace://work/data.txt', to }] }),
        to,
      ).rejects.toThrow(SkillToolError);
    }
    // A link planted by an earlier command must not carry a later input out of the workspace.
    const workspace = await fixture.workspaces.workspace('attacker');
    await symlink(hostFolder, path.join(workspace.root, 'work', 'inputs', 'planted'));
    await expect(
      fixture.run({
        command: 'true',
        inputs: [{ from: 'workspace://work/data.txt', to: 'inputs/planted/escape.txt' }],
      }),
    ).rejects.toThrow(/leads out of the workspace/);
    await expect(fixture.run({ command: 'true', cwd: 'inputs/planted' })).rejects.toThrow(/leads out of the workspace/);
    expect(await readdir(hostFolder)).toEqual(before);
  });

  it('keeps the host environment out and the network off', async () => {
    // A server of the test's own, so the check can fail wherever it runs (no reliance on a service).
    let connections = 0;
    const server = createServer((socket) => {
      connections += 1;
      socket.end('hello\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    process.env.SKILLBOX_SECURITY_SECRET = 'env secret';
    try {
      const result = await fixture.exec({
        command: `env; (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>&1 && echo CONNECTED`,
      });
      expect(result.stdout).not.toContain('env secret');
      expect(result.stdout).not.toContain('CONNECTED');
      expect(connections).toBe(0);
      // The same command reaches the server from the host, so the refusal above is the sandbox's doing.
      expect(
        execFileSync('bash', ['-c', `(exec 3<>/dev/tcp/127.0.0.1/${port}) && echo CONNECTED`], { encoding: 'utf8' }),
      ).toBe('CONNECTED\n');
    } finally {
      delete process.env.SKILLBOX_SECURITY_SECRET;
      await new Promise((resolve) => server.close(resolve));
    }
    expect((await stat(fixture.hostSecret)).isFile()).toBe(true);
  });
});

describe.runIf(sandboxWorks)('workspace security: host inputs', () => {
  it('keeps host input paths out of the metadata.json the sandbox can read', async () => {
    const fixture = await workspaceSecurityFixture({ hostInputs: true });
    try {
      const result = await fixture.run({
        command: 'cat inputs/host-secret.txt; echo; cat /workspace/metadata.json',
        inputs: [{ from: fixture.hostSecret }],
        output_files: [],
      });
      expect(result.stdout).toContain('host secret');
      expect(result.stdout).toContain('"to": "work/inputs/host-secret.txt"');
      expect(result.stdout).toMatch(/"from": "host:sha256:[0-9a-f]{16}\/host-secret.txt"/);
      expect(result.stdout).not.toContain(path.dirname(fixture.hostSecret));
    } finally {
      await fixture.dispose();
    }
  });
});

describe.runIf(sandboxWorks)('workspace security: read-only host paths', () => {
  it('shows a readOnlyPaths folder at its host path and refuses writes to it', async () => {
    const shared = await mkdtemp(path.join(os.tmpdir(), 'skillbox-ro-shared-'));
    await writeFile(path.join(shared, 'data.txt'), 'shared data');
    const fixture = await workspaceSecurityFixture({ readOnlyPaths: [shared] });
    try {
      const result = await fixture.exec({
        command: `cat '${shared}/data.txt'; echo; (echo changed > '${shared}/data.txt') 2>/dev/null || echo refused-write; (touch '${shared}/new') 2>/dev/null || echo refused-create`,
        output_files: [],
      });
      expect(result.stdout).toBe('shared data\nrefused-write\nrefused-create\n');
      expect(await readFile(path.join(shared, 'data.txt'), 'utf8')).toBe('shared data');
      expect(await readdir(shared)).toEqual(['data.txt']);
    } finally {
      await fixture.dispose();
      await rm(shared, { recursive: true, force: true });
    }
  });
});
