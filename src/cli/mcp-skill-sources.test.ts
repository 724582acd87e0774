import { describe, expect, it } from 'vitest';
import { CliUsageError } from './command.js';
import { parseMcpServerArgument } from './mcp-skill-sources.js';

describe('--mcp values', () => {
  it('reads a URL, a command line with quoted words, and an optional label', () => {
    expect(parseMcpServerArgument('http://127.0.0.1:3000/mcp')).toEqual({ url: 'http://127.0.0.1:3000/mcp' });
    expect(parseMcpServerArgument('docs=https://skills.example/mcp')).toEqual({
      label: 'docs',
      url: 'https://skills.example/mcp',
    });
    expect(parseMcpServerArgument(`npx skillbox mcp --root "/my skills"`)).toEqual({
      command: 'npx',
      args: ['skillbox', 'mcp', '--root', '/my skills'],
    });
    expect(parseMcpServerArgument('local=node server.js')).toEqual({
      label: 'local',
      command: 'node',
      args: ['server.js'],
    });
  });

  it('refuses an empty value naming the option', () => {
    expect(() => parseMcpServerArgument('  ')).toThrow(CliUsageError);
    expect(() => parseMcpServerArgument('label=')).toThrow('--mcp needs a command or an http(s) URL');
  });
});
