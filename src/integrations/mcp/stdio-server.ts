import type { Readable, Writable } from 'node:stream';
import { createSkillMcpServer, type SkillMcpServerOptions } from './skill-mcp-server.js';
import { StdioLineTransport } from './stdio-line-transport.js';
import { watchSkillChanges } from './watch-skill-changes.js';

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
  /**
   * Watch the repository (when it can: FsSkillRepository) and tell the client when skills are
   * added, removed or changed: notifications/tools/list_changed (the catalog in skill_load's
   * description), resources/list_changed and prompts/list_changed. Default false.
   */
  watch?: boolean;
}

/**
 * Serves the skills to the one client on the other end of standard input and output, and resolves
 * when that client goes away (its end of standard input closes) or the connection is closed.
 */
export async function serveSkillsOverStdio(options: StdioSkillServerOptions): Promise<void> {
  const { stdin = process.stdin, stdout = process.stdout, maxMessageBytes, watch = false, ...serverOptions } = options;
  const served = await createSkillMcpServer(serverOptions);
  const { server } = served;
  const log = serverOptions.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const watcher = watch
    ? watchSkillChanges(serverOptions.repository, () => served.notifySkillsChanged(), log)
    : undefined;
  const transport = new StdioLineTransport(stdin, stdout, maxMessageBytes === undefined ? {} : { maxMessageBytes });
  const closed = new Promise<void>((resolve) => {
    // The transport does not notice the end of its input on its own; a client that exits only closes the pipe.
    stdin.once('end', resolve);
    stdin.once('close', resolve);
    server.server.onclose = resolve;
  });
  await server.connect(transport);
  await closed;
  watcher?.close();
  await server.close();
  // The client is gone: its background processes stop, and a workspace only it could name goes too.
  await served.endSession();
}
