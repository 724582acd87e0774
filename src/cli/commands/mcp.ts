import { commandToolNames } from '../../approvals/command-tool-names.js';
import type { SkillRepository } from '../../repository/types.js';
import { createRequirementChecker } from '../../requirements/check-requirements.js';
import { gateRepository } from '../../requirements/gated-repository.js';
import type { ContainerRuntimeOptions } from '../../runtime/container/container-runtime.js';
import { createRuntime, RUNTIME_KINDS, type RuntimeKind } from '../../runtime/create-runtime.js';
import { detectSandboxSupport } from '../../runtime/sandbox-support.js';
import type { SkillToolProfile } from '../../tools/create-skill-tools.js';
import { createExecutionTools } from '../../workspace/tools/execution-tools.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { containerFlagOptions, containerFlagsHelp, containerOptionsFromFlags } from '../container-flags.js';
import { oneOf, parseCommandArguments } from '../parse-command-arguments.js';
import { describeLeftOutSkills, describeRoots, openRepositoryFromArgs } from '../skill-roots.js';

const usage = `Usage: skillbox mcp [--root DIR]... [--profile knowledge|full] [--runtime auto|sandbox|local|container]
                   [--approve] [--catalog-tokens N] [--http PORT [--host ADDRESS] [--token TOKEN]
                   [--max-sessions N] [--session-idle S] [--session-reclaim-after S]
                   [--session-wait S]] [--no-watch]

Serves the skills under the roots to one MCP client over standard input and output (the stdio
transport): the catalog is in the server's instructions, skill_load returns a skill's
instructions, skill_read its files. Standard output carries only the protocol; messages go to
standard error. The server runs until the client closes the connection.

Options:
  --root DIR         a skills folder; repeat for several (default: the standard roots)
  --profile P        knowledge (default): load and read skills only; full: also skill_run and
                     workspace_exec, which run skill scripts in a workspace
  --runtime KIND     where full-profile scripts run: auto (default: the sandbox when bubblewrap
                     works), sandbox, local or container (with --image)
${containerFlagsHelp}
  --approve          with --profile full: ask the person before every skill_run and
                     workspace_exec, and before text is written to a background process
                     (workspace_write_stdin), through the client's elicitation, showing the exact
                     command, skill and files. A client that cannot elicit gets such calls
                     refused, saying approval is required; nothing runs unasked.
  --catalog-tokens N most tokens of the catalog, which is sent twice (instructions and
                     skill_load's description); over it descriptions are shortened, then skills
                     are listed by name only, and the catalog says so (default 4000; 0: no limit)

  --watch            follow the skill roots on disk (the default): skills added, removed or
                     edited, and edits to their files, reach the client as
                     notifications/tools/list_changed, resources/list_changed and
                     prompts/list_changed
  --no-watch         serve the skills as they were at start

  --http PORT        serve MCP's Streamable HTTP transport at http://HOST:PORT/mcp instead of
                     stdio (0: a free port); each client gets its own MCP session, with its
                     own loaded skills and workspace. Runs until interrupted.
  --host ADDRESS     the address to listen on with --http (default 127.0.0.1); anything but
                     loopback needs a token
  --token TOKEN      with --http, every request must carry "Authorization: Bearer TOKEN"
                     (default: $SKILLBOX_MCP_TOKEN; prefer it, command lines are visible to
                     other users)
  --max-sessions N   with --http, most MCP sessions at once (default 128; each holds 0.1 to
                     0.6 MB of server memory, more with a larger catalog). At the limit, the least recently used idle
                     session is ended, as the client's DELETE would end it (its processes and
                     workspace too), to make room for a new one
  --session-idle S   with --http, a session with no request for S seconds is ended, even one
                     with background processes (default 1800)
  --session-reclaim-after S
                     with --http, at the limit, a session with no request in flight, no open
                     stream and no background process for S seconds (at once when its client
                     closed its stream) may be ended for a new one (default 2; sessions of
                     connected clients and busy sessions never are)
  --session-wait S   with --http, at the limit with no session idle, how long a new session
                     waits for a slot before 503 with Retry-After (default 10, at most 60;
                     0: refuse at once)

Skills are also served through the MCP Skills Extension (skills/list, skills/get,
resources/read of skill://NAME/PATH), as resources and as one prompt per skill.

Example host configuration (Claude Desktop, Cursor, ...):
  { "mcpServers": { "skills": { "command": "npx", "args": ["skillbox", "mcp", "--root", "/path/to/skills"] } } }

On start it says on standard error how many skills it serves, and which it does not, with why
(skipped, shadowed, hidden from the model).

Exit status: 0 when the client disconnects, 1 when a root is unusable, 2 on bad usage.
`;

export interface McpArguments {
  roots: string[];
  profile: SkillToolProfile;
  runtime: RuntimeKind;
  /** With `--runtime container`: the image and the daemon (`--image`, `--engine`, `--oci-runtime`). */
  container?: ContainerRuntimeOptions;
  /** Undefined: the server's default budget; 0: no limit. */
  catalogTokens?: number;
  /** Serve Streamable HTTP on this port instead of stdio. */
  httpPort?: number;
  host?: string;
  token?: string;
  /** With --http: the session limits, in the options' units (milliseconds). */
  maxSessions?: number;
  sessionIdleMs?: number;
  sessionReclaimAfterMs?: number;
  sessionWaitMs?: number;
  /** Follow changes on disk and tell clients (default true). */
  watch: boolean;
  /** `--approve`: every command waits for a person, asked through the client's elicitation. */
  approve?: true;
}

export function parseMcpArguments(args: string[]): McpArguments {
  const { values } = parseCommandArguments({
    args,
    options: {
      root: { type: 'string', multiple: true, default: [] },
      profile: { type: 'string' },
      runtime: { type: 'string' },
      'catalog-tokens': { type: 'string' },
      http: { type: 'string' },
      host: { type: 'string' },
      token: { type: 'string' },
      'max-sessions': { type: 'string' },
      'session-idle': { type: 'string' },
      'session-reclaim-after': { type: 'string' },
      'session-wait': { type: 'string' },
      watch: { type: 'boolean' },
      'no-watch': { type: 'boolean' },
      approve: { type: 'boolean' },
      ...containerFlagOptions,
    },
    allowPositionals: false,
    strict: true,
  });
  // A runtime without the execution tools would be silently unused; the user meant something else.
  if (values.runtime !== undefined && values.profile !== 'full')
    throw new CliUsageError('--runtime applies only with --profile full (the knowledge profile runs no scripts)');
  if (values.approve === true && values.profile !== 'full')
    throw new CliUsageError('--approve applies only with --profile full (the knowledge profile runs no commands)');
  const parsed: McpArguments = {
    roots: values.root ?? [],
    profile: oneOf(values.profile, ['knowledge', 'full'] as const, '--profile', 'knowledge'),
    runtime: oneOf(values.runtime, RUNTIME_KINDS, '--runtime', 'auto'),
    watch: values['no-watch'] !== true,
  };
  const container = containerOptionsFromFlags(parsed.runtime, values);
  if (container !== undefined) parsed.container = container;
  if (values.approve === true) parsed.approve = true;
  if (values.watch === true && values['no-watch'] === true)
    throw new CliUsageError('--watch and --no-watch contradict each other; give one');
  const tokens = values['catalog-tokens'];
  if (tokens !== undefined) {
    if (!/^(0|[1-9][0-9]*)$/.test(tokens))
      throw new CliUsageError(`--catalog-tokens must be a whole number of tokens (0 for no limit); got "${tokens}"`);
    parsed.catalogTokens = Number(tokens);
  }
  if (values.http !== undefined) {
    if (!/^(0|[1-9][0-9]{0,4})$/.test(values.http) || Number(values.http) > 65535)
      throw new CliUsageError(`--http must be a TCP port from 0 to 65535; got "${values.http}"`);
    parsed.httpPort = Number(values.http);
  } else {
    const httpOnly = [
      'host',
      'token',
      'max-sessions',
      'session-idle',
      'session-reclaim-after',
      'session-wait',
    ] as const;
    const given = httpOnly.find((name) => values[name] !== undefined);
    if (given !== undefined) throw new CliUsageError(`--${given} applies only with --http`);
  }
  const maxSessions = values['max-sessions'];
  if (maxSessions !== undefined) {
    if (!/^[1-9][0-9]{0,6}$/.test(maxSessions))
      throw new CliUsageError(`--max-sessions must be a whole number of sessions from 1; got "${maxSessions}"`);
    parsed.maxSessions = Number(maxSessions);
  }
  const idle = seconds(values['session-idle'], '--session-idle', 1);
  if (idle !== undefined) parsed.sessionIdleMs = idle;
  const reclaim = seconds(values['session-reclaim-after'], '--session-reclaim-after', 0);
  if (reclaim !== undefined) parsed.sessionReclaimAfterMs = reclaim;
  const wait = seconds(values['session-wait'], '--session-wait', 0, 60);
  if (wait !== undefined) parsed.sessionWaitMs = wait;
  if (values.host !== undefined) parsed.host = values.host;
  if (values.token !== undefined) {
    if (values.token.trim() === '') throw new CliUsageError('--token needs a non-empty value');
    parsed.token = values.token;
  }
  return parsed;
}

/** A number of seconds (decimals allowed) as whole milliseconds, at least `least` ms and at most `most` seconds. */
function seconds(value: string | undefined, flag: string, least: 0 | 1, most?: number): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^[0-9]{1,9}(\.[0-9]{1,3})?$/.test(value) ? Math.round(Number(value) * 1000) : Number.NaN;
  if (!(ms >= least) || (most !== undefined && ms > most * 1000)) {
    const range = most !== undefined ? ` from 0 to ${most}` : least === 1 ? ' above 0' : '';
    throw new CliUsageError(`${flag} must be a number of seconds${range}; got "${value}"`);
  }
  return ms;
}

async function run(args: string[], io: CliIo): Promise<number> {
  const options = parseMcpArguments(args);
  let integration: typeof import('../../integrations/mcp/index.js');
  try {
    // Imported here, not at the top: @modelcontextprotocol/sdk is optional, and the other commands must work without
    // it.
    integration = await import('../../integrations/mcp/index.js');
  } catch (error) {
    io.stderr(
      `skillbox mcp: needs the optional package @modelcontextprotocol/sdk (npm install @modelcontextprotocol/sdk): ${(error as Error).message}\n`,
    );
    return 2;
  }
  const repository = await openRepositoryFromArgs(options.roots, io, 'mcp');
  // With scripts run, the model's view marks skills whose declared needs the runtime lacks (skill_run refuses them).
  let modelRepository: SkillRepository = repository;
  let executionTools: ReturnType<typeof createExecutionTools> | undefined;
  let workspaces: ReturnType<typeof createWorkspaceManager> | undefined;
  if (options.profile === 'full') {
    const runtime = createRuntime({
      kind: options.runtime,
      hostFallback: true,
      ...(options.container === undefined ? {} : { container: options.container }),
    });
    if (!runtime.isolated) {
      const support = options.runtime === 'local' ? undefined : detectSandboxSupport();
      const why =
        support === undefined
          ? 'you chose --runtime local'
          : `the sandbox is unavailable${support.available ? '' : ` (${support.reason})`}`;
      io.stderr(
        `skillbox mcp: WARNING: skill scripts run WITHOUT isolation, because ${why}; they can read and change anything you can.\n`,
      );
    }
    // A person's MCP client drives servers and interactive programs, and edits files: the process
    // tools and the file tools are on here.
    workspaces = createWorkspaceManager({ runtime, repository });
    executionTools = createExecutionTools({
      workspaces,
      backgroundProcesses: true,
      fileTools: true,
    });
    // The gate is a view without a watch of its own: the server follows the roots through it.
    modelRepository = Object.assign(
      gateRepository(repository, createRequirementChecker({ runtime, environment: {}, network: false }), 'mark'),
      { watch: repository.watch.bind(repository) },
    );
  }
  const skills = await repository.list();
  const served = skills.filter((skill) => skill.modelInvocable !== false).length;
  const serverOptions = {
    repository: modelRepository,
    profile: options.profile,
    ...(options.catalogTokens !== undefined
      ? { catalogBudget: options.catalogTokens === 0 ? {} : { tokens: options.catalogTokens } }
      : {}),
    ...(executionTools !== undefined ? { executionTools } : {}),
    // No decide: the server asks through the client's elicitation (skill-mcp-server.ts).
    ...(options.approve === true ? { approval: { tools: [...commandToolNames] } } : {}),
    log: (line: string) => io.stderr(`${line}\n`),
    // A host keeps the server for the whole session: skills edited meanwhile should reach it.
    watch: options.watch,
  };
  const servedLine = (where: string) =>
    `skillbox mcp: serving ${served} skill${served === 1 ? '' : 's'} (profile ${options.profile}${options.approve === true ? ', commands need approval' : ''}) on ${where}\n`;
  if (options.httpPort !== undefined) {
    const token = options.token ?? (io.env.SKILLBOX_MCP_TOKEN || undefined);
    const http = await integration.serveSkillsOverHttp({
      ...serverOptions,
      port: options.httpPort,
      ...(options.host !== undefined ? { host: options.host } : {}),
      ...(token !== undefined ? { token } : {}),
      ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
      ...(options.sessionIdleMs !== undefined ? { sessionIdleMs: options.sessionIdleMs } : {}),
      ...(options.sessionReclaimAfterMs !== undefined ? { sessionReclaimAfterMs: options.sessionReclaimAfterMs } : {}),
      ...(options.sessionWaitMs !== undefined ? { sessionWaitMs: options.sessionWaitMs } : {}),
    });
    // Listened for before the URL is printed: a client may be done, and stop the server, before the
    // notes below are written (a SIGTERM then killed the process instead of closing the server).
    const stopped = new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    io.stderr(servedLine(`${http.url}${token === undefined ? '' : ' (bearer token required)'}`));
    if (skills.length === 0)
      io.stderr(`skillbox mcp: no skill found; looked in ${describeRoots(repository, options.roots, io)}\n`);
    io.stderr(await describeLeftOutSkills(repository, skills, 'mcp'));
    await stopped;
    await http.close();
    // MCP sessions end with the server: their workspaces would only wait in /tmp for a TTL sweep.
    await workspaces?.close();
    return 0;
  }
  io.stderr(servedLine('stdio'));
  if (skills.length === 0)
    io.stderr(`skillbox mcp: no skill found; looked in ${describeRoots(repository, options.roots, io)}\n`);
  io.stderr(await describeLeftOutSkills(repository, skills, 'mcp'));
  try {
    await integration.serveSkillsOverStdio(serverOptions);
  } finally {
    await workspaces?.close();
  }
  return 0;
}

export const mcpCommand: CliCommand = {
  name: 'mcp',
  usage,
  run,
};
