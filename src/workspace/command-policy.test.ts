import { describe, expect, it } from 'vitest';
import { CommandPolicyError } from './errors.js';
import { CommandPolicy, splitCommandLine } from './command-policy.js';

describe('splitCommandLine', () => {
  it('handles quotes and escapes', () => {
    expect(splitCommandLine(`python3 scripts/a.py 'two words' "say \\"hi\\"" x\\ y`)).toEqual(['python3', 'scripts/a.py', 'two words', 'say "hi"', 'x y']);
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
  it('matches by name, ./ path or basename, and the deny list wins', () => {
    const policy = new CommandPolicy({ allowedCommands: ['python3', 'run.sh'], deniedCommands: ['python3'] });
    expect(policy.check('./run.sh x')).toEqual(['./run.sh', 'x']);
    expect(policy.check('bin/run.sh')).toEqual(['bin/run.sh']);
    expect(() => policy.check('python3 -c 1')).toThrow(/denied by denied_commands/);
    expect(() => policy.check('bash -c id')).toThrow(CommandPolicyError);
  });

  it('is a no-op without lists and rejects malformed lists', () => {
    expect(new CommandPolicy().check('a; b')).toBeUndefined();
    expect(() => new CommandPolicy({ allowedCommands: [''] })).toThrow(/non-empty/);
  });
});
