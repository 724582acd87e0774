import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  findPreludeProgram,
  PRELUDE_CHOICE_VARIABLE,
  SANDBOX_PRELUDE_PROGRAM_PATH,
} from '../../src/runtime/sandbox-prelude-program.js';
import { sandboxFixture } from './runtime-fixture.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

// What the host process itself holds or shows, reaching a confined script by inheritance.
describe.runIf(process.platform === 'linux')('sandbox runtime: what the host process holds', () => {
  const fixture = sandboxFixture();
  const hostFolder = mkdtempSync(join(tmpdir(), 'skillbox-host-files-'));
  afterAll(() => {
    fixture.dispose();
    rmSync(hostFolder, { recursive: true, force: true });
  });

  it('cannot use file descriptors the host process inherited without close-on-exec', () => {
    // The application was started with fd 100 open on a secret and fd 101 on a host file it appends to
    // (a shell redirection, a supervisor's log): neither may reach the sandbox. (libuv happens to close
    // low-numbered ones in its children, not these.)
    const secret = join(hostFolder, 'secret');
    const hostLog = join(hostFolder, 'host.log');
    writeFileSync(secret, 'host secret\n');
    writeFileSync(hostLog, '');
    const script = `
      import { SandboxRuntime } from './src/runtime/sandbox-runtime.ts';
      const result = await new SandboxRuntime().run({
        workspaceRoot: process.env.WORKSPACE, cwd: process.env.WORKSPACE, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 10000, maxOutputBytes: 65536,
        command: 'cat <&100; echo planted >&101; ls /proc/self/fd | tr "\\\\n" " "',
      });
      console.log(JSON.stringify(result));
    `;
    const child = spawnSync(
      'bash',
      ['-c', `exec 100<"$SECRET" 101>>"$HOST_LOG"; exec "$NODE" --import tsx --input-type=module -e "$SCRIPT"`],
      {
        cwd: repositoryRoot,
        env: {
          ...process.env,
          SECRET: secret,
          HOST_LOG: hostLog,
          NODE: process.execPath,
          SCRIPT: script,
          WORKSPACE: fixture.workspace,
        },
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect(child.stderr).toBe('');
    const result = JSON.parse(child.stdout) as { stdout: string; stderr: string };
    expect(result.stdout).not.toContain('host secret');
    expect(result.stderr).toMatch(/100: Bad file descriptor/);
    expect(readFileSync(hostLog, 'utf8')).toBe('');
    // Only stdin, stdout, stderr and the listing's own directory handle are open.
    expect(result.stdout.trim().split(' ')).toEqual(['0', '1', '2', '3']);
  });

  // The Node process holds `descriptors` (number to file to read) without close-on-exec and nothing
  // else above stderr, as if its own parent had opened them, and runs `command` in a SandboxRuntime.
  // (Node 20 marks inherited descriptors up to 12 or so close-on-exec as it starts; 20 stays open.)
  // `prelude: 'shell'` forces the shell preludes where the compiled one exists (sandbox-prelude-program.ts).
  function runHoldingDescriptors(descriptors: Record<number, string>, command: string, prelude: 'default' | 'shell') {
    const script = `
      import { SandboxRuntime } from './src/runtime/sandbox-runtime.ts';
      const result = await new SandboxRuntime({ maxProcesses: 77, maxMemoryBytes: 3 * 1024 ** 3, maxFileSizeBytes: 5 * 1024 ** 2 }).run({
        workspaceRoot: process.env.WORKSPACE, cwd: process.env.WORKSPACE, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 10000, maxOutputBytes: 65536,
        command: process.env.COMMAND,
      });
      console.log(JSON.stringify(result));
    `;
    const opens = Object.entries(descriptors)
      .map(([number, path]) => `exec ${number}<${JSON.stringify(path)}; `)
      .join('');
    const child = spawnSync(
      'bash',
      [
        '-c',
        `for fd in /proc/$$/fd/*; do fd=\${fd##*/}; ((fd > 2)) && exec {fd}>&-; done; ${opens}exec "$NODE" --import tsx --input-type=module -e "$SCRIPT"`,
      ],
      {
        cwd: repositoryRoot,
        env: {
          ...process.env,
          NODE: process.execPath,
          SCRIPT: script,
          WORKSPACE: fixture.workspace,
          COMMAND: command,
          ...(prelude === 'shell' ? { [PRELUDE_CHOICE_VARIABLE]: 'shell' } : {}),
        },
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect(child.stderr).toBe('');
    return JSON.parse(child.stdout) as { stdout: string; stderr: string };
  }

  const limitsAndDescriptors =
    'echo "pid 1: $(readlink /proc/1/exe)"; ls /proc/self/fd | tr "\\n" " "; echo; ulimit -Hu; ulimit -Hv; ulimit -Hf';

  it('the dash prelude (no descriptor above 9 inherited) leaves only stdio and sets every limit', () => {
    const result = runHoldingDescriptors({}, limitsAndDescriptors, 'shell');
    const [firstProcess, descriptors, processes, memoryKib, fileKib] = result.stdout.trim().split('\n');
    // Where the host has dash, this is the fast prelude's own work, not bash's.
    if (existsSync('/usr/bin/dash')) expect(firstProcess).toMatch(/dash$/);
    expect(descriptors?.trim().split(' ')).toEqual(['0', '1', '2', '3']);
    expect([processes, memoryKib, fileKib]).toEqual(['77', String(3 * 1024 ** 2), String(5 * 1024)]);
  });

  it('cannot use an inherited descriptor above 9, which dash cannot name: bash takes over and sets the same limits', () => {
    const secret = join(hostFolder, 'secret-20');
    writeFileSync(secret, 'host secret twenty\n');
    const result = runHoldingDescriptors({ 20: secret }, `cat <&20; ${limitsAndDescriptors}`, 'shell');
    expect(result.stdout).not.toContain('host secret');
    expect(result.stderr).toMatch(/20: Bad file descriptor/);
    const [firstProcess, descriptors, processes, memoryKib, fileKib] = result.stdout.trim().split('\n');
    expect(firstProcess).toMatch(/bash$/);
    expect(descriptors?.trim().split(' ')).toEqual(['0', '1', '2', '3']);
    expect([processes, memoryKib, fileKib]).toEqual(['77', String(3 * 1024 ** 2), String(5 * 1024)]);
  });

  it.runIf(findPreludeProgram() !== undefined)(
    'the compiled prelude cannot leak an inherited descriptor either, low or high (fd 9, 20, 251), and sets every limit',
    () => {
      const secret = join(hostFolder, 'secret-compiled');
      writeFileSync(secret, 'host secret compiled\n');
      const result = runHoldingDescriptors(
        { 9: secret, 20: secret, 251: secret },
        `cat <&9; cat <&20; cat <&251; ${limitsAndDescriptors}`,
        'default',
      );
      expect(result.stdout).not.toContain('host secret');
      expect(result.stderr).toMatch(/9: Bad file descriptor/);
      expect(result.stderr).toMatch(/20: Bad file descriptor/);
      expect(result.stderr).toMatch(/251: Bad file descriptor/);
      const [firstProcess, descriptors, processes, memoryKib, fileKib] = result.stdout.trim().split('\n');
      expect(firstProcess).toBe(`pid 1: ${SANDBOX_PRELUDE_PROGRAM_PATH}`);
      expect(descriptors?.trim().split(' ')).toEqual(['0', '1', '2', '3']);
      expect([processes, memoryKib, fileKib]).toEqual(['77', String(3 * 1024 ** 2), String(5 * 1024)]);
    },
  );

  it("does not show the host workspace path on its processes' command lines", async () => {
    const result = await fixture.run('for file in /proc/[0-9]*/cmdline; do tr "\\0" " " < "$file"; echo; done');
    expect(result.stdout).toContain('for file in');
    expect(result.stdout).not.toContain(fixture.workspace);
    expect(result.stdout).not.toContain('--bind');
  });

  it('cannot read host-wide configuration kept under /usr (npm tokens in /usr/local/etc/npmrc, /usr/etc/npmrc)', async () => {
    const folders = ['/usr/local/etc', '/usr/etc'];
    const result = await fixture.run(`${folders.map((folder) => `ls -A ${folder} 2>/dev/null`).join('; ')}; true`);
    expect(result.stdout).toBe('');
    // Meaningful only where the host has something there; the CI image has npmrc files in both.
    const hostEntries = folders.filter(existsSync).flatMap((folder) => readdirSync(folder));
    if (hostEntries.length === 0) console.warn('no host configuration under /usr to hide on this machine');
  });
});
