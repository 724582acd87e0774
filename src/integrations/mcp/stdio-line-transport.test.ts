import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { StdioLineTransport } from './stdio-line-transport.js';

/** A started transport with a small limit, its input, and what it received and answered. */
async function harness(maxMessageBytes = 200) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioLineTransport(stdin, stdout, { maxMessageBytes });
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  transport.onmessage = (message) => void received.push(message);
  transport.onerror = (error) => void errors.push(error.message);
  await transport.start();
  let written = '';
  stdout.on('data', (chunk: Buffer) => void (written += chunk.toString()));
  const answers = (): unknown[] =>
    written
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as unknown);
  return { stdin, transport, received, errors, answers };
}

const request = (id: number | string, padding = ''): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: { padding } });

describe('StdioLineTransport', () => {
  it('reads several messages from one chunk and one message split over many', async () => {
    const { stdin, received } = await harness();
    stdin.write(`${request(1)}\n${request(2)}\r\n`);
    const third = `${request(3)}\n`;
    for (const character of third) stdin.write(character);
    expect(received.map((message) => (message as { id: number }).id)).toEqual([1, 2, 3]);
  });

  it('answers an oversized message with its id, whether the id comes first or last, and reads the next one', async () => {
    const { stdin, received, answers, transport } = await harness();
    let closed = false;
    transport.onclose = () => void (closed = true);
    stdin.write(`${request(7, 'x'.repeat(500))}\n`);
    stdin.write(
      `${JSON.stringify({ method: 'ping', params: { padding: 'y'.repeat(500), id: 99 }, jsonrpc: '2.0', id: 'last' })}\n`,
    );
    stdin.write(`${request(8)}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(answers()).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32600, message: expect.stringMatching(/message of 5\d\d bytes is over the 200-byte limit/) },
      },
      {
        jsonrpc: '2.0',
        id: 'last',
        error: { code: -32600, message: expect.stringMatching(/over the 200-byte limit/) },
      },
    ]);
    expect(received.map((message) => (message as { id: number }).id)).toEqual([8]);
    expect(closed).toBe(false);
  });

  it('answers without an id when none can be found, and a line that is not JSON with a parse error', async () => {
    const { stdin, answers, received } = await harness();
    stdin.write(`${JSON.stringify({ params: { id: 5, padding: 'z'.repeat(500) } })}\n`);
    stdin.write('not json\n');
    stdin.write(`${request(9)}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(answers()).toEqual([
      { jsonrpc: '2.0', error: { code: -32600, message: expect.stringMatching(/over the 200-byte limit/) } },
      { jsonrpc: '2.0', error: { code: -32700, message: expect.stringMatching(/not JSON/) } },
    ]);
    expect(received).toHaveLength(1);
  });

  it('refuses a limit that cannot work', () => {
    expect(() => new StdioLineTransport(new PassThrough(), new PassThrough(), { maxMessageBytes: 0 })).toThrow(
      'maxMessageBytes must be a positive integer, got 0',
    );
  });
});
