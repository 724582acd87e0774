import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpSkillServerError } from './errors.js';
import { skillsExtensionId } from './skills-extension.js';

/** One MCP server to take skills from: a command to start (stdio), a URL (Streamable HTTP), or a transport you built. */
export interface McpSkillServer {
  /**
   * The host's name for the server: it qualifies colliding skill names (`label:name`) and names
   * the server in errors. Default: derived from the command or URL. Never the name the server
   * reports about itself, which any server could make up.
   */
  label?: string;
  /** The program to start; it speaks MCP on its standard input and output. */
  command?: string;
  args?: readonly string[];
  /** Environment of the started program (default: the MCP SDK's safe subset of this process's). */
  env?: Record<string, string>;
  cwd?: string;
  /** A Streamable HTTP endpoint, for example `http://127.0.0.1:3000/mcp`. */
  url?: string;
  /** Extra HTTP headers, for example `{ authorization: 'Bearer …' }`. */
  headers?: Record<string, string>;
  /** An MCP client transport to use as it is (an in-process pair, a custom transport). */
  transport?: Transport;
}

/** A connected server that declared the Skills Extension. */
export interface McpSkillConnection {
  label: string;
  client: Client;
  directoryRead: boolean;
}

/** The label of a server when the caller gave none: the command's or host's name, lowercased to `[a-z0-9-]`. */
export function defaultServerLabel(server: McpSkillServer, index: number): string {
  let base = '';
  if (server.url !== undefined) {
    try {
      base = new URL(server.url).hostname;
    } catch {
      base = '';
    }
  } else if (server.command !== undefined) {
    base =
      server.command
        .split(/[\\/]/)
        .at(-1)
        ?.replace(/\.[a-z]+$/i, '') ?? '';
  }
  const cleaned = base
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return cleaned === '' ? `server${index + 1}` : cleaned;
}

function transportOf(server: McpSkillServer, label: string): Transport {
  const kinds = [server.command, server.url, server.transport].filter((kind) => kind !== undefined).length;
  if (kinds !== 1) throw new McpSkillServerError(label, 'give exactly one of command, url or transport');
  if (server.transport !== undefined) return server.transport;
  if (server.url !== undefined) {
    let url: URL;
    try {
      url = new URL(server.url);
    } catch {
      throw new McpSkillServerError(label, `url ${JSON.stringify(server.url)} is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new McpSkillServerError(label, `url ${JSON.stringify(server.url)} must be http: or https:`);
    return new StreamableHTTPClientTransport(
      url,
      server.headers === undefined ? {} : { requestInit: { headers: server.headers } },
    );
  }
  return new StdioClientTransport({
    command: server.command as string,
    args: [...(server.args ?? [])],
    ...(server.env === undefined ? {} : { env: server.env }),
    ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    // The server's own messages (skillbox mcp's start-up line) would interleave with the host's
    // output; they are dropped rather than shown as if the host had written them.
    stderr: 'ignore',
  });
}

/** Connects to the server and checks it declared the Skills Extension; closes it and throws otherwise. */
export async function connectSkillServer(server: McpSkillServer, label: string): Promise<McpSkillConnection> {
  const transport = transportOf(server, label);
  const client = new Client(
    { name: 'skillbox', version: '0.1.0' },
    // Saying so lets a server leave out a fallback tool it only offers to hosts without the extension.
    { capabilities: { extensions: { [skillsExtensionId]: {} } } },
  );
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new McpSkillServerError(label, `cannot connect: ${(error as Error).message}`, { cause: error });
  }
  const declared = client.getServerCapabilities()?.extensions?.[skillsExtensionId] as
    | { directoryRead?: unknown }
    | undefined;
  if (declared === undefined) {
    await client.close();
    throw new McpSkillServerError(
      label,
      `does not declare the Skills Extension (${skillsExtensionId}), so it serves no skills`,
    );
  }
  return { label, client, directoryRead: declared.directoryRead === true };
}
