import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  findPreludeProgram,
  PRELUDE_CHOICE_VARIABLE,
  SANDBOX_PRELUDE_PROGRAM_PATH,
} from '../../src/runtime/sandbox-prelude-program.js';
import { sandboxWorks } from '../support/services.js';
import { sandboxFixture } from './runtime-fixture.js';

const compiled = findPreludeProgram();

// CI builds the compiled prelude (.ci/run), so the fast path is what CI tests; elsewhere it may be absent.
describe.runIf(sandboxWorks && process.env.CI === 'true')('sandbox prelude: CI tests the compiled one', () => {
  it('finds the compiled prelude built for this architecture', () => {
    expect(compiled).toBeDefined();
  });
});

/** A fixture whose runtime was created with the compiled prelude (where built) or, forced, the shell ones. */
function fixtureWith(prelude: 'compiled' | 'shell') {
  const before = process.env[PRELUDE_CHOICE_VARIABLE];
  if (prelude === 'shell') process.env[PRELUDE_CHOICE_VARIABLE] = 'shell';
  try {
    return sandboxFixture({ maxProcesses: 77, maxMemoryBytes: 3 * 1024 ** 3, maxFileSizeBytes: 5 * 1024 ** 2 });
  } finally {
    if (before === undefined) delete process.env[PRELUDE_CHOICE_VARIABLE];
    else process.env[PRELUDE_CHOICE_VARIABLE] = before;
  }
}

// Each prelude, compiled and shell, must do the same job: the command behaves the same under both.
describe.each([
  { prelude: 'compiled' as const, runs: sandboxWorks && compiled !== undefined },
  { prelude: 'shell' as const, runs: sandboxWorks },
])('sandbox prelude ($prelude): the command runs as the caller gave it', ({ prelude, runs }) => {
  if (!runs) {
    it.skip(`${prelude} prelude not available here`, () => {});
    return;
  }
  const fixture = fixtureWith(prelude);
  afterAll(() => fixture.dispose());
  const runArgv = (argv: string[], extra: Parameters<typeof fixture.run>[1] = {}) =>
    fixture.run('', { command: undefined, argv, ...extra });

  it('starts from the expected first program, which stays pid 1 while the command is not', async () => {
    const result = await fixture.run('readlink /proc/1/exe; echo $$');
    const [firstProgram, commandPid] = result.stdout.trim().split('\n');
    if (prelude === 'compiled') expect(firstProgram).toBe(SANDBOX_PRELUDE_PROGRAM_PATH);
    else expect(firstProgram).toMatch(/\/(dash|bash)$/);
    expect(Number(commandPid)).toBeGreaterThan(1);
  });

  it('sets every limit, soft and hard, so the command cannot raise it', async () => {
    const result = await fixture.run(
      'ulimit -Su; ulimit -Hu; ulimit -Sv; ulimit -Hv; ulimit -Sf; ulimit -Hf; ulimit -Hu 78 2>/dev/null && echo raised',
    );
    expect(result.stdout.trim().split('\n')).toEqual([
      '77',
      '77',
      String(3 * 1024 ** 2),
      String(3 * 1024 ** 2),
      String(5 * 1024),
      String(5 * 1024),
    ]);
  });

  it('stops a write at the file-size limit', async () => {
    const result = await fixture.run('head -c 6291456 /dev/zero > big; stat -c %s big');
    expect(result.stdout.trim()).toBe(String(5 * 1024 ** 2));
  });

  it('passes environment names that are not shell identifiers on unchanged, and SHLVL and PWD as given', async () => {
    const env = { PATH: '/usr/bin:/bin', 'odd-name': 'kept', 'a.b': 'dotted', SHLVL: '41', PWD: '/given' };
    const result = await runArgv(['env'], { env });
    const lines = result.stdout.trim().split('\n').sort();
    expect(lines).toEqual(['PATH=/usr/bin:/bin', 'PWD=/given', 'SHLVL=41', 'a.b=dotted', 'odd-name=kept'].sort());
    const withoutPwd = await runArgv(['env'], { env: { PATH: '/usr/bin:/bin' } });
    expect(withoutPwd.stdout.trim()).toBe('PATH=/usr/bin:/bin');
  });

  it('finds argv programs on PATH, runs relative ones and scripts without #!, and names a missing one with 127', async () => {
    writeFileSync(join(fixture.workspace, 'no-shebang'), 'echo "plain script $1"\n', { mode: 0o755 });
    writeFileSync(join(fixture.workspace, 'not-runnable'), 'echo never\n', { mode: 0o644 });
    const onPath = await runArgv(['printf', '%s', 'on path']);
    expect(onPath).toMatchObject({ stdout: 'on path', exitCode: 0 });
    const relative = await runArgv(['./no-shebang', 'argument']);
    expect(relative).toMatchObject({ stdout: 'plain script argument\n', exitCode: 0 });
    const missing = await runArgv(['skillbox-missing-program']);
    expect(missing.exitCode).toBe(127);
    expect(missing.stderr).toContain('skillbox-missing-program');
    expect(missing.stderr).toMatch(/not found/);
    const notRunnable = await runArgv(['./not-runnable']);
    expect(notRunnable.exitCode).toBe(126);
    expect(notRunnable.stderr).toContain('not-runnable');
  });

  it('reports a command killed by a signal as 128 + n', async () => {
    const result = await fixture.run('kill -TERM $$');
    expect(result.exitCode).toBe(143);
  });

  it('keeps stdin for the command', async () => {
    const result = await runArgv(['cat'], { stdin: 'fed in' });
    expect(result.stdout).toBe('fed in');
  });
});

// The compiled prelude is a host file every sandbox runs first: no run may change it, and no other
// host user may have been able to either.
describe.runIf(sandboxWorks && compiled !== undefined)('sandbox prelude: the compiled program is out of reach', () => {
  const fixture = fixtureWith('compiled');
  const hostPath = compiled as string;
  const original = compiled ? readFileSync(compiled) : Buffer.alloc(0);
  afterAll(() => fixture.dispose());

  it('cannot be written, replaced, removed or re-mounted from inside the sandbox', async () => {
    const attacks = [
      `echo 'exit 0' > ${SANDBOX_PRELUDE_PROGRAM_PATH}`,
      `printf x >> ${SANDBOX_PRELUDE_PROGRAM_PATH}`,
      `cp /usr/bin/true ${SANDBOX_PRELUDE_PROGRAM_PATH}`,
      `rm -f ${SANDBOX_PRELUDE_PROGRAM_PATH}`,
      `mv ${SANDBOX_PRELUDE_PROGRAM_PATH} /tmp/moved`,
      `ln -sf /workspace/evil ${SANDBOX_PRELUDE_PROGRAM_PATH}`,
      `chmod 777 ${SANDBOX_PRELUDE_PROGRAM_PATH}`,
      `mount -o remount,rw,bind ${SANDBOX_PRELUDE_PROGRAM_PATH}`,
      `touch /run/planted`,
    ];
    for (const attack of attacks) {
      const result = await fixture.run(`${attack} 2>/dev/null && echo CHANGED`);
      expect(result.stdout, attack).not.toContain('CHANGED');
    }
    expect(readFileSync(hostPath).equals(original)).toBe(true);
    // Every later run still starts from it.
    const next = await fixture.run('readlink /proc/1/exe');
    expect(next.stdout.trim()).toBe(SANDBOX_PRELUDE_PROGRAM_PATH);
  });

  it("shows the sandbox neither the program's host path nor the folder it was built in", async () => {
    const result = await fixture.run(`ls -d ${JSON.stringify(hostPath)} ${JSON.stringify(join(hostPath, '..'))} 2>&1`);
    expect(result.stdout.match(/No such file or directory/g)).toHaveLength(2);
  });

  it('refuses to start the command when it cannot join the run cgroup', () => {
    // Descriptor 9 is not open: the join fails, and the command must not run outside its cgroup.
    const result = spawnSync(hostPath, ['9', '-', '-', '-', 'unset', '', 'echo', 'ran unconfined'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(result.status).toBe(126);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/cannot join the run's cgroup/);
  });

  it('is not trusted when another user or group could have replaced it', () => {
    const folder = mkdtempSync(join(tmpdir(), 'skillbox-prelude-copies-'));
    const copy = (name: string, mode: number) => {
      const path = join(folder, name);
      writeFileSync(path, original);
      // Set outright: writeFileSync's mode passes through the umask.
      chmodSync(path, mode);
      return path;
    };
    try {
      expect(findPreludeProgram(copy('intact', 0o755))).toBe(join(folder, 'intact'));
      for (const mode of [0o775, 0o757, 0o777]) {
        const writable = copy(`writable-${mode.toString(8)}`, mode);
        expect(statSync(writable).mode & 0o777).toBe(mode);
        expect(findPreludeProgram(writable)).toBeUndefined();
      }
      if (process.getuid?.() === 0) {
        const foreign = copy('owned-by-nobody', 0o755);
        chownSync(foreign, 65534, 65534);
        expect(findPreludeProgram(foreign)).toBeUndefined();
      }
      // A file that is not a prelude of this protocol (here, a program that prints nothing).
      const impostor = join(folder, 'impostor');
      writeFileSync(impostor, readFileSync('/bin/true'));
      chmodSync(impostor, 0o755);
      expect(findPreludeProgram(impostor)).toBeUndefined();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
