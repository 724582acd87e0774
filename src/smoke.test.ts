import { describe, expect, it } from 'vitest';
import { main } from './cli/main.js';

describe('skillbox command', () => {
  it('prints usage for help and rejects an unknown command with exit code 2', async () => {
    let out = '';
    let err = '';
    const io = {
      stdout: (t: string) => void (out += t),
      stderr: (t: string) => void (err += t),
      cwd: process.cwd(),
      env: {},
    };
    expect(await main(['help'], io)).toBe(0);
    expect(out).toContain('Usage: skillbox <command>');
    expect(await main(['no-such-command'], io)).toBe(2);
    expect(err).toContain('unknown command "no-such-command"');
  });
});
