import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandPolicy } from '../../src/runtime/command-policy.js';
import { findExecutable, SYSTEM_PATH } from '../../src/runtime/find-executable.js';
import { workspaceSecurityFixture } from './workspace-fixture.js';

/**
 * `allowedCommands` judges the program started. These programs start any other program they are
 * told to, from their arguments alone, so allowing one allows every command: each row is the
 * bypass (run as argv, no shell, as the policy runs it). They must be refused at construction.
 */
const bypasses: ReadonlyArray<[program: string, command: string]> = [
  ['awk', `awk 'BEGIN { system("id -u") }'`],
  ['mawk', `mawk 'BEGIN { system("id -u") }'`],
  ['git', 'git -c alias.x=!id x'],
  ['tar', 'tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec=id /etc/hostname'],
  ['sed', "sed -n '1e id' /etc/hostname"],
  ['env', 'env id -u'],
  ['timeout', 'timeout 5 id -u'],
  ['nice', 'nice id -u'],
  ['nohup', 'nohup id -u'],
  ['xargs', 'xargs -a /etc/hostname id'],
  ['find', 'find /etc/hostname -exec id ;'],
  ['sort', 'sort --compress-program=id -S 1 /etc/hostname'],
  ['make', 'make -f /dev/null --eval=x:;@id x'],
  ['perl', 'perl -e \'system("id")\''],
  ['node', 'node -e \'require("child_process").execSync("id")\''],
  ['python3', 'python3 -c \'import os; os.system("id")\''],
  ['sh', 'sh -c id'],
  ['bash', 'bash -c id'],
  ['dash', 'dash -c id'],
  ['stdbuf', 'stdbuf -o0 id'],
  ['setsid', 'setsid id'],
  ['flock', 'flock /tmp id'],
  ['script', 'script -qc id /dev/null'],
  ['split', 'split --filter=id /etc/hostname'],
  ['zip', 'zip -T -TT id /tmp/x.zip /etc/hostname'],
  ['vim', "vim -es '+!id' +q"],
  ['ed', 'ed'],
  ['ssh', 'ssh -o ProxyCommand=id x'],
  ['gdb', 'gdb -batch -ex !id'],
  ['strace', 'strace -f id'],
  ['taskset', 'taskset 1 id'],
  ['ionice', 'ionice id'],
  ['chrt', 'chrt 0 id'],
  ['prlimit', 'prlimit id'],
  ['unshare', 'unshare id'],
  ['run-parts', 'run-parts /workspace/work'],
  ['tclsh', 'tclsh'],
  ['wget', 'wget --use-askpass=id http://x'],
  ['less', "less '+!id' /etc/hostname"],
  ['man', 'man -P id ls'],
  ['dpkg', 'dpkg --pre-invoke=id --configure -a'],
  ['watch', 'watch id'],
  ['busybox', 'busybox sh -c id'],
];

describe('allowedCommands refuses programs that run other programs', () => {
  it.each(bypasses.filter(([program]) => findExecutable(program, SYSTEM_PATH) !== undefined))(
    '%s (bypass: %s)',
    (program) => {
      expect(() => new CommandPolicy({ allowedCommands: ['echo', program] })).toThrow(
        new RegExp(`allowedCommands entry "${program}" runs other programs`),
      );
    },
  );

  it('refuses a launcher reached by its absolute path or under another name that links to it', () => {
    const awk = findExecutable('awk', SYSTEM_PATH);
    if (awk !== undefined) expect(() => new CommandPolicy({ allowedCommands: [awk] })).toThrow(/runs other programs/);
    // /usr/bin/python3 and /usr/bin/python3.11 are both Python; so is any versioned name.
    for (const name of ['python3.11', 'python3.12', 'perl5.36.0']) {
      if (findExecutable(name, SYSTEM_PATH) !== undefined)
        expect(() => new CommandPolicy({ allowedCommands: [name] })).toThrow(/runs other programs/);
    }
  });

  it('still accepts programs that only do their own work', () => {
    const plain = ['echo', 'cat', 'wc', 'head', 'ls', 'grep', 'cut', 'tr', 'base64', 'sha256sum'].filter(
      (name) => findExecutable(name, SYSTEM_PATH) !== undefined,
    );
    expect(() => new CommandPolicy({ allowedCommands: plain })).not.toThrow();
  });

  it('explains what to do instead', () => {
    expect(() => new CommandPolicy({ allowedCommands: ['env'] })).toThrow(
      /allowing it would allow every command.*docs\/workspaces\.md/,
    );
  });
});

// The bypass is real: with an allow list of `echo` and `awk`, awk ran a program that is not allowed.
describe.runIf(process.platform === 'linux' && existsSync('/usr/bin/bwrap'))('the awk bypass, end to end', () => {
  let fixture: Awaited<ReturnType<typeof workspaceSecurityFixture>> | undefined;
  let refused: unknown;
  beforeAll(async () => {
    try {
      fixture = await workspaceSecurityFixture({ allowedCommands: ['echo', 'awk'] });
    } catch (error) {
      refused = error;
    }
  });
  afterAll(async () => {
    await fixture?.dispose();
  });

  it('never gets to run', async () => {
    const ran = await fixture?.run({ command: `awk 'BEGIN { system("id -u") }'`, output_files: [] });
    expect(ran?.stdout).toBeUndefined();
    expect(String(refused)).toMatch(/allowedCommands.*"awk" runs other programs/);
  });
});
