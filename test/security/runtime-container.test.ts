import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContainerRuntime } from '../../src/runtime/container/container-runtime.js';
import { WorkspaceContainers } from '../../src/runtime/container/workspace-containers.js';
import {
  containerEngineWorks,
  containerImage,
  containerSocket,
  dockerdHasGvisor,
  dockerdSocket,
  dockerdWorks,
} from '../support/services.js';
import { containerFixture, hostProcessesMentioning, sleep } from './runtime-fixture.js';

// The attacks of the sandbox suite that a container can be held to, against the container runtime
// through podman's Engine API, and the key three (host environment, network, writing outside the
// workspace) through dockerd's too. As an unprivileged host user the rootful sockets are closed, so
// this file skips there (the global setup says so in one line).
describe.runIf(containerEngineWorks)('container runtime (podman): what a command can reach', () => {
  describeWhatACommandCanReach(containerSocket, 'all');
});

describe.runIf(dockerdWorks)('container runtime (dockerd): what a command can reach', () => {
  describeWhatACommandCanReach(dockerdSocket, 'key');
});

// gVisor is one option away: `ociRuntime: 'runsc'` on a daemon that honours it (Docker's does,
// podman 4.3's compatible API does not and is refused below).
// Each container there is a full copy of the image (vfs) and gVisor boots a kernel: a minute is not long.
describe.runIf(dockerdHasGvisor)(
  'container runtime (dockerd, gVisor): what a command can reach',
  { timeout: 120_000 },
  () => {
    describeWhatACommandCanReach(dockerdSocket, 'key', 'runsc');
  },
);

function describeWhatACommandCanReach(socketPath: string, attacks: 'all' | 'key', ociRuntime?: string): void {
  const fixture = containerFixture({
    socketPath,
    // Under gVisor the cap counts the sandbox's own kernel threads too: 64 starves it before a command starts.
    pids: ociRuntime === undefined ? 64 : 256,
    memoryBytes: 128 * 1024 * 1024,
    ...(ociRuntime === undefined ? {} : { ociRuntime }),
  });
  const more = attacks === 'all' ? it : it.skip;
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((_request, response) => response.end('host secret over http'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.close();
    await fixture.dispose();
  });

  it.runIf(ociRuntime !== undefined)("runs on the asked-for runtime's kernel, not the host's", async () => {
    // gVisor answers uname with its own release and boots with its own log; runc would show the host's.
    const result = await fixture.run('uname -r; dmesg 2>/dev/null | head -1');
    expect(result.stdout.split('\n')[0]).not.toBe(release());
    expect(result.stdout).toContain('gVisor');
  });

  it.runIf(ociRuntime !== undefined)(
    'cannot hang the run with a fork bomb that starves the sandbox, nor break the next run',
    async () => {
      // On the code before, gVisor's sandbox, starved of threads by the pids cap, never ended the
      // exec nor answered the restart after the timeout's kill: the run waited forever.
      const started = performance.now();
      const bomb = await fixture.run('f() { f | f & }; f; sleep 60', { timeoutMs: 5000 });
      expect(performance.now() - started).toBeLessThan(60_000);
      expect(bomb.timedOut || bomb.warnings.length > 0).toBe(true);
      const next = await fixture.run('echo alive');
      expect(next.stdout).toBe('alive\n');
    },
    120_000,
  );

  it('sees no host environment variable, not its own exec environment nor through /proc', async () => {
    process.env.SKILLBOX_CONTAINER_HOST_SECRET = 'host-env-secret';
    try {
      const result = await fixture.run('env; cat /proc/self/environ /proc/$PPID/environ 2>&1 | tr "\\0" "\\n"', {
        env: { PATH: '/usr/bin:/bin', ASKED: 'yes' },
      });
      expect(result.stdout).not.toContain('host-env-secret');
      // The image's and the daemon's variables (HOME, container=podman, HOSTNAME) are not added either.
      expect(result.stdout).not.toMatch(/^(HOME|container|HOSTNAME|TERM)=/m);
      expect(result.stdout).toContain('ASKED=yes');
    } finally {
      delete process.env.SKILLBOX_CONTAINER_HOST_SECRET;
    }
  });

  more('cannot read host files: the project, the host /etc, the agent process', async () => {
    const result = await fixture.run(
      `cat ${process.cwd()}/package.json; ls /work /root; cat /etc/shadow; cat /proc/1/root/etc/hostname; ls /proc/1/fd; echo done`,
    );
    expect(result.stdout).toBe('done\n');
    expect(result.stderr).toMatch(/package\.json: No such file/);
    expect(result.stderr).toMatch(/shadow: Permission denied/);
  });

  it('cannot reach a server on the host loopback, and has no interface but lo', async () => {
    const result = await fixture.run(
      `python3 -I -c "import socket; s = socket.create_connection(('127.0.0.1', ${port}), 2); print(s.recv(100))"; ls /sys/class/net`,
    );
    expect(result.stdout).not.toContain('host secret');
    // gVisor without a network shows no interface at all, runc the loopback only.
    expect(['lo', '']).toContain(result.stdout.trim());
  });

  // podman and Docker make /var/tmp writable by all whatever mode is asked: it is given 1 MiB.
  it('cannot write anywhere but the workspace and the small /tmp and /var/tmp, nor move the workspace folder', async () => {
    const result = await fixture.run(
      'for d in / /etc /usr /usr/bin /var /var/tmp /root /home /opt /run /skillbox; do touch $d/planted 2>/dev/null && echo "wrote $d"; done; ' +
        'mv /skillbox/workspace /skillbox/moved 2>/dev/null && echo moved; ln -s / /skillbox/link 2>/dev/null && echo linked; ' +
        'touch /tmp/ok planted && echo workspace-and-tmp; df -k /tmp /var/tmp | tail -2 | awk "{print \\$2}"',
    );
    // podman and Docker's runc make /var/tmp writable by all whatever its mode; gVisor keeps the mode.
    expect(
      result.stdout
        .trim()
        .split('\n')
        .filter((line) => line !== 'wrote /var/tmp'),
    ).toEqual(['workspace-and-tmp', String(64 * 1024), '1024']);
  });

  more(
    'holds no capability, cannot gain privileges, runs under seccomp as nobody, and cannot signal PID 1',
    async () => {
      const result = await fixture.run(
        'id -u; grep -E "^(CapEff|CapBnd|NoNewPrivs|Seccomp):" /proc/self/status | tr -s "\\t " " "; kill -KILL 1 2>/dev/null || echo refused',
      );
      expect(result.stdout).toBe(
        '65534\nCapEff: 0000000000000000\nCapBnd: 0000000000000000\nNoNewPrivs: 1\nSeccomp: 2\nrefused\n',
      );
      expect((await fixture.run('echo still-up')).stdout).toBe('still-up\n');
    },
  );

  more('leaves nothing alive after a timeout, even what left the session or double-forked', async () => {
    const result = await fixture.run(
      '(setsid sh -c "while :; do echo x >> escaped; sleep 0.05; done" &); (sh -c "(sleep 60 &)" &); sleep 30',
      { timeoutMs: 800 },
    );
    expect(result).toMatchObject({ timedOut: true, exitCode: 137 });
    const size = (await fixture.runtime.files(fixture.workspace).inspect('escaped'))?.sizeBytes;
    await sleep(400);
    expect((await fixture.runtime.files(fixture.workspace).inspect('escaped'))?.sizeBytes).toBe(size);
    // Nothing the command started is left in the container: no sleep 60, no writing loop.
    const listing = await fixture.run('cat /proc/[0-9]*/cmdline | tr "\\0" " "');
    expect(listing.stdout).toContain('sleep infinity');
    expect(listing.stdout).not.toMatch(/sleep 60|while :/);
  });

  more('caps the processes and the memory of the container', async () => {
    const forks = await fixture.run(
      'python3 -I -c "\nimport os, time\nn = 0\ntry:\n    while n < 1000:\n        if os.fork() == 0:\n            time.sleep(20)\n            os._exit(0)\n        n += 1\nexcept OSError:\n    pass\nprint(n)"',
    );
    expect(Number(forks.stdout.trim())).toBeLessThan(64);
    const memory = await fixture.run('python3 -I -c "b = bytearray(400 * 1024 * 1024); print(len(b))"');
    expect(memory.exitCode).toBe(137);
    expect(memory.stdout).toBe('');
    expect(memory.limitsHit).toEqual(['memory']);
    expect(memory.warnings.join(' ')).toMatch(/memory/);
    // A command that kills itself with the same signal did not meet the cap.
    expect((await fixture.run('kill -KILL $$')).limitsHit).toBeUndefined();
  });

  more('caps 100 MB on stdout without holding it', async () => {
    const result = await fixture.run('head -c 100000000 /dev/zero', { maxOutputBytes: 1000, timeoutMs: 20_000 });
    expect(result.stdout.length).toBe(1000);
    expect(result.stdoutDroppedBytes).toBe(100_000_000 - 1000);
  });

  more('cannot hide bytes from the workspace measure in the staging area beside it', async () => {
    const files = fixture.runtime.files(fixture.workspace);
    const before = await files.measure({ maxBytes: Infinity, maxFiles: Infinity });
    const result = await fixture.run('head -c 4000000 /dev/urandom > /skillbox/staging/hidden && echo hidden');
    expect(result.stdout).toBe('hidden\n');
    const after = await files.measure({ maxBytes: Infinity, maxFiles: Infinity });
    expect(after.bytes - before.bytes).toBeGreaterThanOrEqual(4_000_000);
  });
}

describe.runIf(containerEngineWorks)('container runtime: the measure a running command could stop', () => {
  const fixture = containerFixture();
  afterAll(() => fixture.dispose());

  it('a command that kills every new process of its user (the killer too) does not outlive its run', async () => {
    expect((await fixture.run('echo kept > kept.txt')).exitCode).toBe(0);
    const result = await fixture.run('(while :; do kill -KILL -1 2>/dev/null; echo x >> survivor; done) & sleep 30', {
      timeoutMs: 1000,
    });
    // With its warnings, so a failure says which way the run ended.
    expect({ exitCode: result.exitCode, warnings: result.warnings }).toMatchObject({ exitCode: 137 });
    const files = fixture.runtime.files(fixture.workspace);
    const size = (await files.inspect('survivor'))?.sizeBytes;
    await sleep(400);
    expect((await files.inspect('survivor'))?.sizeBytes).toBe(size);
    // The container was restarted, not replaced: the workspace is as it was.
    expect((await fixture.run('cat kept.txt')).stdout).toBe('kept\n');
  });

  it('a command that kills every process it can while the quota is watched is counted as over the disk limit', async () => {
    // Builtins only (no fork), sparing its own shell and the wrapper above it, so it keeps running.
    const running = fixture.run(
      'end=$((SECONDS + 4)); while [ $SECONDS -lt $end ]; do for p in /proc/[0-9]*; do p=${p#/proc/}; ' +
        '[ $p = $$ ] || [ $p = $PPID ] || kill -KILL $p 2>/dev/null; done; done',
      { timeoutMs: 8000 },
    );
    // Measured until a measure meets the killer (its exec may take a while to start on a loaded host).
    let ended = false;
    void running.finally(() => {
      ended = true;
    });
    let usage: Awaited<ReturnType<ReturnType<typeof fixture.runtime.files>['measure']>> | undefined;
    while (!ended) {
      usage = await fixture.runtime.files(fixture.workspace).measure({ maxBytes: Infinity, maxFiles: Infinity });
      if (usage.exceeded !== undefined) break;
      await sleep(100);
    }
    expect(usage?.exceeded).toBe('disk');
    expect(usage?.unreadable).toMatch(/measure/);
    await running;
    // Once the command ended, the count is exact again.
    expect(
      (await fixture.runtime.files(fixture.workspace).measure({ maxBytes: Infinity, maxFiles: Infinity })).exceeded,
    ).toBeUndefined();
  });
});

// podman's API service gives every exec a conmon pair that waits `exit_command_delay` (default
// 300 s) before cleaning up: a model running commands in a loop fills the daemon host's process
// table. Counted on this host, so only where the daemon is local (the conmon processes are visible).
describe.runIf(containerEngineWorks)('container runtime: what the runs leave on the daemon host', () => {
  const fixture = containerFixture();
  afterAll(() => fixture.dispose());

  it('leaves no exec monitor (conmon) behind on the host after its runs end', async () => {
    expect((await fixture.run('true')).exitCode).toBe(0);
    const containerId = containerIdOf(fixture.workspace);
    for (let index = 0; index < 5; index += 1) expect((await fixture.run('true')).exitCode).toBe(0);
    // The monitors end within moments once cleanup is not delayed; 15 s is far below the 300 s delay.
    let left = execMonitors(containerId).length;
    for (let waited = 0; waited < 15_000 && left > 0; waited += 250) {
      await sleep(250);
      left = execMonitors(containerId).length;
    }
    expect(left).toBe(0);
  });
});

describe.runIf(containerEngineWorks)('container runtime: the OCI runtime asked for is the one used', () => {
  it('refuses to run a command in a container the daemon made with another runtime than the one asked for', async () => {
    // podman 4.3's Docker-compatible API takes HostConfig.Runtime and ignores it: on the code before,
    // a runtime asking for gVisor ran every command under runc (the kernel's own release showed).
    const runtime = createContainerRuntime({ image: containerImage, socketPath: containerSocket, ociRuntime: 'runsc' });
    const workspace = mkdtempSync(join(tmpdir(), 'skillbox-oci-runtime-'));
    try {
      await expect(
        runtime.run({
          command: 'uname -r',
          workspaceRoot: workspace,
          cwd: workspace,
          env: { PATH: '/usr/bin:/bin' },
          timeoutMs: 60_000,
          maxOutputBytes: 4096,
        }),
      ).rejects.toMatchObject({ code: 'CONTAINER_ENGINE_FAILED', message: expect.stringContaining('"runsc"') });
      const names = execFileSync('podman', ['ps', '-a', '--format', '{{.Labels}}'], { encoding: 'utf8' });
      expect(names).not.toContain(workspace);
    } finally {
      await runtime
        .files(workspace)
        .remove('')
        .catch(() => undefined);
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});

/** The id of the workspace's container, as the daemon names it (conmon's `-c` argument). */
function containerIdOf(workspace: string): string {
  const name = WorkspaceContainers.baseName(workspace);
  const listing = execFileSync('curl', [
    '-fsS',
    '--unix-socket',
    containerSocket,
    `http://d/v1.41/containers/${name}/json`,
  ]).toString('utf8');
  return (JSON.parse(listing) as { Id: string }).Id;
}

/** Host conmon processes watching an exec session (not the container itself) of the container. */
function execMonitors(containerId: string): number[] {
  return hostProcessesMentioning(containerId).filter((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return argv[0]?.endsWith('conmon') === true && argv.includes('--exec-attach');
    } catch {
      return false;
    }
  });
}

describe.runIf(containerEngineWorks)('container runtime: background processes', () => {
  const fixture = containerFixture();
  afterAll(() => fixture.dispose());

  it('a background process that left its session does not outlive the workspace, nor does its container', async () => {
    const start = fixture.runtime.start;
    if (start === undefined) throw new Error('the container runtime has no start');
    const handle = await start.call(fixture.runtime, {
      workspaceRoot: fixture.workspace,
      cwd: fixture.workspace,
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 60_000,
      maxOutputBytes: 4096,
      command: '(setsid sh -c "while :; do date +%s%N > beat; sleep 0.05; done" &); echo started; sleep 60',
    });
    // Its container is made first: on a loaded host that takes seconds.
    let output = '';
    for (let waited = 0; waited < 60_000 && !output.includes('started'); waited += 100)
      output += (await handle.read(100)).stdout;
    expect(output).toContain('started');
    // Its first beat can come well after "started" on a loaded host: waited for, not assumed.
    const beat = async () => (await fixture.run('cat beat 2>/dev/null')).stdout;
    let first = await beat();
    for (let waited = 0; waited < 60_000 && first === ''; waited += 100) {
      await sleep(100);
      first = await beat();
    }
    expect(first).not.toBe('');
    // A run beside it ends its own processes only: the background process keeps beating.
    let later = await beat();
    for (let waited = 0; waited < 10_000 && later === first; waited += 100) {
      await sleep(100);
      later = await beat();
    }
    expect(later).not.toBe(first);
    await fixture.runtime.files(fixture.workspace).remove('');
    expect((await handle.exited).exitCode).toBe(137);
    const base = WorkspaceContainers.baseName(fixture.workspace);
    const left = execFileSync('curl', [
      '-fsS',
      '--unix-socket',
      containerSocket,
      `http://d/v1.41/containers/json?all=true&filters=${encodeURIComponent(JSON.stringify({ label: [`io.skillbox.workspace=${base}`] }))}`,
    ]).toString('utf8');
    expect(JSON.parse(left)).toEqual([]);
  }, 120_000);
});
