import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/** The MCP SDK's own stdio limit, which clients built on it expect a server to accept. */
export const defaultMaxMessageBytes = 10 * 1024 * 1024;

/** Bytes kept from each end of a discarded message, enough to find its JSON-RPC id. */
const keptEdgeBytes = 1024;

/**
 * A request id written first (`{"jsonrpc":"2.0","id":7,...}`, as most clients write it) or last
 * (`{...,"id":7}`, as the MCP SDK writes it). The last form only matches the outer object's own last
 * member: an `"id"` nested in the params, or inside a string, is followed by more than one `}` or by
 * a quote.
 */
const leadingId = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,256}")/;
const trailingId = /[,{]\s*"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,256}")\s*\}\s*$/;

function recoverId(head: Buffer, tail: Buffer): string | number | undefined {
  const match = leadingId.exec(head.toString('utf8')) ?? trailingId.exec(tail.toString('utf8'));
  if (match === null) return undefined;
  try {
    const id = JSON.parse(match[1] as string) as unknown;
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

export interface StdioLineTransportOptions {
  /** Bytes one message (one line) may have; a longer one is answered with an error and dropped. */
  maxMessageBytes?: number;
}

/**
 * The server side of MCP over stdio: one JSON-RPC message per line. It replaces the SDK's
 * StdioServerTransport, whose read buffer throws once it holds more than 10 MiB and then closes the
 * transport, so one oversized message (or a burst of messages arriving in one chunk) made `skillbox
 * mcp` exit without a word to the client. Here the limit applies to each line alone: an oversized
 * line is skipped without being held in memory (only its first and last bytes are kept, to find its
 * id), answered with a JSON-RPC error, and the next line is read as usual.
 */
export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #maxMessageBytes: number;
  #chunks: Buffer[] = [];
  #lineBytes = 0;
  /** Set while skipping a line over the limit: its first and last bytes and its full length. */
  #discarding: { head: Buffer; tail: Buffer; bytes: number } | undefined;
  #started = false;
  #closed = false;

  constructor(stdin: Readable, stdout: Writable, options: StdioLineTransportOptions = {}) {
    const limit = options.maxMessageBytes ?? defaultMaxMessageBytes;
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new RangeError(`maxMessageBytes must be a positive integer, got ${String(limit)}`);
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#maxMessageBytes = limit;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('StdioLineTransport already started');
    this.#started = true;
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('error', this.#onStreamError);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('error', this.#onStreamError);
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause();
    this.#chunks = [];
    this.#discarding = undefined;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.#stdout.once('drain', resolve);
    });
  }

  readonly #onStreamError = (error: Error): void => {
    this.onerror?.(error);
  };

  readonly #onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (let newline = data.indexOf(0x0a); newline !== -1; newline = data.indexOf(0x0a)) {
      this.#take(data.subarray(0, newline));
      this.#endLine();
      data = data.subarray(newline + 1);
    }
    if (data.length > 0) this.#take(data);
  };

  /** Adds bytes of the current line, switching to discarding once the line passes the limit. */
  #take(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.#discarding === undefined && this.#lineBytes + bytes.length <= this.#maxMessageBytes) {
      // Copied: the stream may reuse the chunk's memory once this handler returns.
      this.#chunks.push(Buffer.from(bytes));
      this.#lineBytes += bytes.length;
      return;
    }
    if (this.#discarding === undefined) {
      const held = Buffer.concat(this.#chunks);
      this.#discarding = {
        head: held.subarray(0, keptEdgeBytes),
        tail: held.subarray(-keptEdgeBytes),
        bytes: held.length,
      };
      this.#chunks = [];
      this.#lineBytes = 0;
      if (held.length < keptEdgeBytes)
        this.#discarding.head = Buffer.concat([held, bytes.subarray(0, keptEdgeBytes - held.length)]);
    }
    const discarding = this.#discarding;
    discarding.bytes += bytes.length;
    discarding.tail = Buffer.concat([discarding.tail, bytes.subarray(-keptEdgeBytes)]).subarray(-keptEdgeBytes);
  }

  #endLine(): void {
    const discarding = this.#discarding;
    if (discarding !== undefined) {
      this.#discarding = undefined;
      this.#reject(
        recoverId(discarding.head, discarding.tail),
        ErrorCode.InvalidRequest,
        `message of ${discarding.bytes} bytes is over the ${this.#maxMessageBytes}-byte limit for one stdio message (maxMessageBytes); it was not read`,
      );
      return;
    }
    const line = Buffer.concat(this.#chunks).toString('utf8').replace(/\r$/, '');
    this.#chunks = [];
    this.#lineBytes = 0;
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      this.#reject(undefined, ErrorCode.ParseError, `the message is not JSON: ${(error as Error).message}`);
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      this.onerror?.(new Error(`not a JSON-RPC message: ${message.error.message}`));
      return;
    }
    this.onmessage?.(message.data);
  }

  /** Answers a message that could not be read; without an id the answer has none, as JSON-RPC allows. */
  #reject(id: string | number | undefined, code: number, message: string): void {
    this.onerror?.(new Error(message));
    const reply = { jsonrpc: '2.0' as const, ...(id === undefined ? {} : { id }), error: { code, message } };
    this.send(reply as JSONRPCMessage).catch((error: unknown) => this.onerror?.(error as Error));
  }
}
