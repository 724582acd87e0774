import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../support/services.js';
import { sandboxFixture } from './runtime-fixture.js';

// The sandbox must neither show nor change anything of the host outside the workspace.
describe.runIf(sandboxWorks)('sandbox runtime: filesystem confinement', () => {
  const fixture = sandboxFixture();
  let otherWorkspace: string;
  let homeSecretDir: string;

  beforeAll(() => {
    otherWorkspace = mkdtempSync(join(tmpdir(), 'skillbox-other-session-'));
    writeFileSync(join(otherWorkspace, 'secret.txt'), 'other session secret');
    homeSecretDir = mkdtempSync(join(homedir(), '.skillbox-security-'));
    writeFileSync(join(homeSecretDir, 'token'), 'home secret');
  });
  afterAll(() => {
    fixture.dispose();
    rmSync(otherWorkspace, { recursive: true, force: true });
    rmSync(homeSecretDir, { recursive: true, force: true });
  });

  it('cannot read system secrets, the home folder, the project or another workspace', async () => {
    const project = join(process.cwd(), 'package.json');
    // Each target exists on the host, so a failure inside proves confinement, not a typo.
    for (const target of ['/etc/shadow', join(homeSecretDir, 'token'), project, join(otherWorkspace, 'secret.txt')]) {
      expect(existsSync(target)).toBe(true);
      const result = await fixture.run(`cat '${target}'`);
      expect(result.exitCode, target).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('No such file or directory');
    }
    const listing = await fixture.run(
      `ls '${homedir()}' '${process.cwd()}' '${otherWorkspace}' /root /home /work 2>&1 | grep -v 'No such file'`,
    );
    expect(listing.stdout).toBe('');
  });

  it('cannot climb out of the workspace with .. or with a link placed in it', async () => {
    symlinkSync(join(otherWorkspace, 'secret.txt'), join(fixture.workspace, 'escape-link'));
    const result = await fixture.run(
      'cat ../../../etc/shadow; cat escape-link; cat /workspace/../workspace/../etc/shadow',
    );
    expect(result.stdout).toBe('');
    expect(result.stderr.match(/No such file or directory/g)).toHaveLength(3);
  });

  it('cannot write anywhere but the workspace, and the host is unchanged after trying', async () => {
    const marker = `skillbox-write-probe-${process.pid}`;
    const targets = [
      `/${marker}`,
      `/etc/${marker}`,
      `/usr/${marker}`,
      `/usr/local/bin/${marker}`,
      join(otherWorkspace, marker),
      join(homedir(), marker),
      join(process.cwd(), marker),
    ];
    const before = readdirSync(otherWorkspace).sort();
    const result = await fixture.run(
      `${targets.map((target) => `(echo x > '${target}') 2>/dev/null && echo "wrote ${target}"`).join('; ')}; true`,
    );
    expect(result.stdout).toBe('');
    for (const target of targets) expect(existsSync(target), target).toBe(false);
    expect(readdirSync(otherWorkspace).sort()).toEqual(before);
    expect(readFileSync(join(otherWorkspace, 'secret.txt'), 'utf8')).toBe('other session secret');
  });

  it('writes to /tmp stay in the sandbox', async () => {
    const name = `skillbox-private-tmp-${process.pid}`;
    const result = await fixture.run(`echo inside > /tmp/${name} && cat /tmp/${name} && ls /tmp | wc -l`);
    expect(result.stdout).toBe('inside\n1\n');
    expect(existsSync(join('/tmp', name))).toBe(false);
  });

  it('cannot write through a link in the workspace that points at the host', async () => {
    const victim = join(otherWorkspace, 'victim.txt');
    writeFileSync(victim, 'original');
    symlinkSync(victim, join(fixture.workspace, 'victim-link'));
    mkdirSync(join(fixture.workspace, 'sub'));
    symlinkSync(otherWorkspace, join(fixture.workspace, 'sub', 'dir-link'));
    await fixture.run('echo changed > victim-link; echo changed > sub/dir-link/victim.txt; rm -rf sub/dir-link/; true');
    expect(readFileSync(victim, 'utf8')).toBe('original');
    expect(existsSync(join(otherWorkspace, 'secret.txt'))).toBe(true);
  });

  it('has no capabilities to undo the mounts', async () => {
    const result = await fixture.run(
      'mount -t tmpfs none /usr 2>&1; umount /workspace 2>&1; grep CapEff /proc/self/status',
    );
    expect(result.stdout).toContain('CapEff:\t0000000000000000');
    const after = await fixture.run('ls /usr/bin | head -1');
    expect(after.stdout).not.toBe('');
  });
});

// Run as root, the sandboxed process is host root in its namespace: a root-only file under a bound
// folder would be readable, so nothing root-only may be bound at all.
describe.runIf(sandboxWorks)('sandbox runtime: no root-only host files', () => {
  const fixture = sandboxFixture();
  afterAll(() => fixture.dispose());

  it('hides the TLS private key folders and keeps the public certificates', async () => {
    const result = await fixture.run(
      'ls -d /etc/ssl/private /etc/pki/tls/private /etc/pki/CA/private 2>&1; ls /etc/ssl/certs | head -1',
    );
    expect(result.stdout).not.toMatch(/^\/etc\/(ssl|pki)\/.*private$/m);
    expect(result.stdout.match(/No such file or directory/g)).toHaveLength(3);
    if (existsSync('/etc/ssl/certs')) expect(result.stdout.trim().split('\n').at(-1)).not.toMatch(/No such file/);
  });

  it('binds nothing under /etc that other host users could not read', async () => {
    const listing = await fixture.run('find /etc -mindepth 1 -xtype f -o -mindepth 1 -xtype d');
    const paths = listing.stdout.split('\n').filter(Boolean);
    expect(paths.length).toBeGreaterThan(5);
    const rootOnly = paths.filter((path) => {
      try {
        const mode = statSync(path).mode;
        const needed = statSync(path).isDirectory() ? 0o005 : 0o004;
        return (mode & needed) !== needed;
      } catch {
        return false;
      }
    });
    expect(rootOnly).toEqual([]);
  });
});
