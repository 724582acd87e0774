import { realpathSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CommandPolicy, splitCommandLine } from './command-policy.js';
import { findExecutable, SYSTEM_PATH } from './find-executable.js';

describe('splitCommandLine', () => {
  it('handles quotes and escapes', () => {
    expect(splitCommandLine(`python3 scripts/a.py 'two words' "say \\"hi\\"" x\\ y`)).toEqual([
      'python3',
      'scripts/a.py',
      'two words',
      'say "hi"',
      'x y',
    ]);
  });

  it.each(['a; b', 'a && b', 'a | b', 'a > f', 'a < f', 'echo `id`', 'echo $(id)', 'a\nb'])('refuses %j', (command) => {
    expect(() => splitCommandLine(command)).toThrow(/shell metacharacter/);
  });

  it('reports unterminated quotes, trailing escapes and empty commands', () => {
    expect(() => splitCommandLine("a 'b")).toThrow(/unterminated quote/);
    expect(() => splitCommandLine('a \\')).toThrow(/trailing escape/);
    expect(() => splitCommandLine('   ')).toThrow(/command is empty/);
  });
});

describe('CommandPolicy', () => {
  it('resolves the program in the system folders and compares paths; the deny list wins', () => {
    const policy = new CommandPolicy({ allowedCommands: ['echo', 'wc'], deniedCommands: ['wc', 'python3'] });
    const echo = findExecutable('echo', SYSTEM_PATH) as string;
    expect(policy.check('echo x')).toEqual([echo, 'x']);
    // The same file reached through another folder name (merged /usr) is the same program.
    expect(policy.check(`${realpathSync(path.dirname(echo))}/echo x`)).toEqual([
      `${realpathSync(path.dirname(echo))}/echo`,
      'x',
    ]);
    expect(() => policy.check('wc -l')).toThrow(/denied by deniedCommands/);
    expect(() => policy.check('python3 -c 1')).toThrow(/denied by deniedCommands/);
    expect(() => policy.check('bash -c id')).toThrow(/"bash" is not in allowedCommands/);
  });

  it('refuses workspace paths and copies named like an allowed program', async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'skillbox-policy-'));
    try {
      await writeFile(path.join(folder, 'echo'), '#!/bin/sh\necho owned\n', { mode: 0o755 });
      const policy = new CommandPolicy({ allowedCommands: ['echo'] });
      expect(() => policy.check(`${folder}/echo hi`)).toThrow(/not one of the allowed programs/);
      expect(() => policy.check('./echo hi')).toThrow(/not one of the allowed programs/);
      expect(() => policy.check('bin/echo hi')).toThrow(/not one of the allowed programs/);
      expect(() => new CommandPolicy({ deniedCommands: ['sh'] }).check(`${folder}/sh`)).toThrow(/denied/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('refuses allow-list entries that are not programs in the system folders', () => {
    expect(() => new CommandPolicy({ allowedCommands: ['run.sh'] })).toThrow(
      /"run.sh" is not an executable in the system folders/,
    );
    expect(() => new CommandPolicy({ allowedCommands: ['scripts/run.sh'] })).toThrow(
      /a program name or an absolute path/,
    );
    expect(new CommandPolicy({ deniedCommands: ['not-installed-anywhere'] }).check('echo a')).toEqual([
      findExecutable('echo', SYSTEM_PATH),
      'a',
    ]);
  });

  it('is a no-op without lists and rejects malformed lists', () => {
    expect(new CommandPolicy().check('a; b')).toBeUndefined();
    expect(() => new CommandPolicy({ allowedCommands: [''] })).toThrow(/non-empty/);
  });
});
