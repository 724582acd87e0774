import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createSkillMcpServer, type SkillMcpServerOptions } from './skill-mcp-server.js';

/** Options of `serveSkillsOverStdio`: the server options plus the streams to use (default the process's). */
export interface StdioSkillServerOptions extends SkillMcpServerOptions {
  /** Where requests come from; default `process.stdin`. */
  stdin?: Readable;
  /** Where responses go; default `process.stdout`. Nothing else may be written there. */
  stdout?: Writable;
}

/**
 * Serves the skills to the one client on the other end of standard input and output, and resolves
 * when that client goes away (its end of standard input closes) or the connection is closed.
 */
export async function serveSkillsOverStdio(options: StdioSkillServerOptions): Promise<void> {
  const { stdin = process.stdin, stdout = process.stdout, ...serverOptions } = options;
  const { server } = await createSkillMcpServer(serverOptions);
  const transport = new StdioServerTransport(stdin, stdout);
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
