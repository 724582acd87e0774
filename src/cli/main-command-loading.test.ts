import { describe, expect, it, vi } from 'vitest';
import type { CliIo } from './command.js';
import { main } from './main.js';

// Which command files a `skillbox` invocation imports: a command's file brings its dependencies
// (the MCP SDK, the AI SDK, the tokenizer), and importing them all was about half of a `skillbox list`.
const { loaded, recordLoad } = vi.hoisted(() => {
  const loaded = new Set<string>();
  const recordLoad = (name: string) => async (importOriginal: () => Promise<unknown>) => {
    loaded.add(name);
    return importOriginal();
  };
  return { loaded, recordLoad };
});
vi.mock('./commands/list.js', recordLoad('list'));
vi.mock('./commands/chat.js', recordLoad('chat'));
vi.mock('./commands/mcp.js', recordLoad('mcp'));
vi.mock('./commands/tokens.js', recordLoad('tokens'));
vi.mock('./commands/validate.js', recordLoad('validate'));

function quietIo(): CliIo & { out: string[] } {
  const out: string[] = [];
  return { out, stdout: (text) => out.push(text), stderr: (text) => out.push(text), cwd: process.cwd(), env: {} };
}

describe('skillbox loads only the command it runs', () => {
  it('prints the overview without importing any command', async () => {
    // Not cleared first: importing main.js must not have imported a command either.
    expect([...loaded]).toEqual([]);
    const io = quietIo();
    expect(await main(['--help'], io)).toBe(0);
    expect(io.out.join('')).toContain('  tokens    measure catalog');
    expect([...loaded]).toEqual([]);
  });

  it("imports one command for its help, its run, and a misspelling's suggestion none", async () => {
    loaded.clear();
    expect(await main(['list', '--help'], quietIo())).toBe(0);
    expect([...loaded]).toEqual(['list']);
    loaded.clear();
    expect(await main(['validate', '/no/such/skill'], quietIo())).toBe(1);
    expect([...loaded]).toEqual(['validate']);
    loaded.clear();
    const io = quietIo();
    expect(await main(['tokns'], io)).toBe(2);
    expect(io.out.join('')).toContain('tokens');
    expect([...loaded]).toEqual([]);
  });
});
