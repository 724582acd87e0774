import { existsSync, lstatSync, statSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { ownPackage } from '../../config/own-package.js';
import type { SkillRepository } from '../../repository/types.js';
import type { SessionStore } from '../../sessions/session-store.js';
import { defaultBaseDir } from '../../workspace/workspace-manager.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { addMcpSkillServers } from '../mcp-skill-sources.js';
import { parseCommandArguments } from '../parse-command-arguments.js';
import { openRepositoryFromArgs } from '../skill-roots.js';

const usage = `Usage: skillbox inspect [--root DIR|URL]... [--mcp [LABEL=]CMD|URL]...
                       [--store sqlite:PATH|redis://...|postgres://...]
                       [--workspaces DIR] [--user ID] [--app NAME] [--host HOST] [--port N]

Serves a local web page that shows the skills under the roots (what the model sees of each, its
token costs, its validation problems, what it requires), the catalog as the model receives it under
a budget, and the sessions of a store as timelines of messages, tool calls, loads and state
changes. It only reads: nothing is written to the roots or the store.

Options:
  --root DIR     a skills folder or an http(s) URL of an archive of one; repeat for several
                 (default: the standard roots)
  --mcp SERVER   also show the skills of an MCP server that serves the Skills Extension, as
                 skillbox list: a command line or an http(s) URL (SKILLBOX_MCP_TOKEN is its
                 bearer token), LABEL= names it. Repeatable.
  --store URL    the sessions: sqlite:PATH, redis://..., postgres://... (default: the SQLite file
                 skillbox chat keeps, ~/.skillbox/sessions.db, when it exists)
  --workspaces DIR
                 the workspaces folder the sessions' runs used, so that their output files are
                 shown (images) or downloadable, each only as a stored run result names it
                 (default: skillbox chat's, when it exists and is this user's own)
  --user ID      whose sessions (default $USER, else "local", as skillbox chat)
  --app NAME     the application the sessions belong to (default "default")
  --host HOST    the address to listen on (default 127.0.0.1); any other needs the random token
                 printed in the URL
  --port N       the port (default: a free one)

The URL is printed on standard output; stop with Ctrl-C.
`;

interface InspectArguments {
  roots: string[];
  mcp: string[];
  store?: string;
  workspaces?: string;
  userId: string;
  appName?: string;
  host: string;
  port: number;
}

function parse(args: string[], io: CliIo): InspectArguments {
  const { values } = parseCommandArguments({
    args,
    options: {
      root: { type: 'string', multiple: true },
      mcp: { type: 'string', multiple: true },
      store: { type: 'string' },
      workspaces: { type: 'string' },
      user: { type: 'string' },
      app: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
    },
    allowPositionals: false,
    strict: true,
  });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliUsageError(`--port must be a port number (0-65535), got "${values.port}"`);
  return {
    roots: (values.root as string[] | undefined) ?? [],
    mcp: (values.mcp as string[] | undefined) ?? [],
    ...(values.store === undefined ? {} : { store: values.store as string }),
    ...(values.workspaces === undefined ? {} : { workspaces: values.workspaces as string }),
    userId: (values.user as string | undefined) ?? io.env.USER ?? safeUserName() ?? 'local',
    ...(values.app === undefined ? {} : { appName: values.app as string }),
    host: (values.host as string | undefined) ?? '127.0.0.1',
    port,
  };
}

function safeUserName(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}

/** The store `--store` names, or chat's SQLite file when it exists; undefined for none. */
async function openStore(spec: string | undefined, io: CliIo): Promise<SessionStore | undefined> {
  if (spec === undefined) {
    const chatFile = join(io.env.HOME ?? homedir(), '.skillbox', 'sessions.db');
    if (!existsSync(chatFile)) return undefined;
    spec = `sqlite:${chatFile}`;
  }
  if (spec.startsWith('sqlite:')) {
    const path = resolve(io.cwd, spec.slice('sqlite:'.length));
    if (!existsSync(path)) throw new CliUsageError(`--store: no SQLite file at ${path}`);
    const { openSqliteSessionStore } = await import('../../sessions/sqlite/index.js');
    return openSqliteSessionStore({ path });
  }
  if (spec.startsWith('redis://') || spec.startsWith('rediss://')) {
    const { openRedisSessionStore } = await import('../../sessions/redis/index.js');
    return openRedisSessionStore({ url: spec });
  }
  if (spec.startsWith('postgres://') || spec.startsWith('postgresql://')) {
    const { openPostgresSessionStore } = await import('../../sessions/postgres/index.js');
    return openPostgresSessionStore({ connectionString: spec });
  }
  throw new CliUsageError(`--store must be sqlite:PATH, redis://... or postgres://..., got "${spec}"`);
}

/**
 * The workspaces folder `--workspaces` names (it must be a folder), else skillbox chat's when it is a
 * real folder of this user's that nobody else may write to: files in it are then what this user's
 * runs left. Undefined: output files are named, not served.
 */
function workspacesFolder(given: string | undefined, io: CliIo): string | undefined {
  if (given !== undefined) {
    const folder = resolve(io.cwd, given);
    if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory())
      throw new CliUsageError(`--workspaces: no folder at ${folder}`);
    return folder;
  }
  const chat = defaultBaseDir();
  const stat = lstatSync(chat, { throwIfNoEntry: false });
  const own = typeof process.getuid !== 'function' || stat?.uid === process.getuid();
  return stat?.isDirectory() && own && (stat.mode & 0o022) === 0 ? chat : undefined;
}

async function run(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, io);
  const local = await openRepositoryFromArgs(parsed.roots, io, 'inspect');
  const sources = await addMcpSkillServers(local, parsed.mcp, io, 'inspect');
  try {
    return await serve(sources.repository, parsed, io);
  } finally {
    await sources.close();
  }
}

async function serve(repository: SkillRepository, parsed: InspectArguments, io: CliIo): Promise<number> {
  const store = await openStore(parsed.store, io);
  const workspacesDir = workspacesFolder(parsed.workspaces, io);
  const { startInspector } = await import('../../inspector/inspector-server.js');
  const inspector = await startInspector({
    repository,
    ...(store === undefined ? {} : { store }),
    ...(workspacesDir === undefined ? {} : { workspacesDir }),
    userId: parsed.userId,
    ...(parsed.appName === undefined ? {} : { appName: parsed.appName }),
    host: parsed.host,
    port: parsed.port,
    assetsDir: join(ownPackage().folder, 'dist', 'inspector'),
  });
  io.stdout(`skillbox inspector: ${inspector.url}\n`);
  await new Promise<void>((resolveStop) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      io.signal?.removeEventListener('abort', stop);
      resolveStop();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (io.signal?.aborted) stop();
    else io.signal?.addEventListener('abort', stop);
  });
  await inspector.close();
  await store?.close();
  return 0;
}

export const inspectCommand: CliCommand = { name: 'inspect', usage, run };
