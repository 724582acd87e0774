import type { Readable, Writable } from 'node:stream';
import { createSkillMcpServer, type SkillMcpServerOptions } from './skill-mcp-server.js';
import { StdioLineTransport } from './stdio-line-transport.js';

/** Options of `serveSkillsOverStdio`: the server options plus the streams to use (default the process's). */
export interface StdioSkillServerOptions extends SkillMcpServerOptions {
  /** Where requests come from; default `process.stdin`. */
  stdin?: Readable;
  /** Where responses go; default `process.stdout`. Nothing else may be written there. */
  stdout?: Writable;
  /**
   * Bytes one incoming message may have (default 10 MiB, the MCP SDK's own limit). A longer one is
   * answered with a JSON-RPC error (code -32600, with the request's id when it can be found) and the
   * server goes on with the next message.
   */
  maxMessageBytes?: number;
}

/**
 * Serves the skills to the one client on the other end of standard input and output, and resolves
 * when that client goes away (its end of standard input closes) or the connection is closed.
 */
export async function serveSkillsOverStdio(options: StdioSkillServerOptions): Promise<void> {
  const { stdin = process.stdin, stdout = process.stdout, maxMessageBytes, ...serverOptions } = options;
  const { server } = await createSkillMcpServer(serverOptions);
  const transport = new StdioLineTransport(stdin, stdout, maxMessageBytes === undefined ? {} : { maxMessageBytes });
  const closed = new Promise<void>((resolve) => {
    // The transport does not notice the end of its input on its own; a client that exits only closes the pipe.
    stdin.once('end', resolve);
    stdin.once('close', resolve);
    server.server.onclose = resolve;
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
