import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { type LoadMode, loadModes } from '../../disclosure/load-mode.js';
import type { MaterializationMode } from '../../disclosure/materialize-request.js';
import type { SkillAgentEvent } from '../../integrations/ai-sdk/agent-events.js';
import type { SkillAgent } from '../../integrations/ai-sdk/skill-agent.js';
import type { ContainerRuntimeOptions } from '../../runtime/container/container-runtime.js';
import { createRuntime, RUNTIME_KINDS, type RuntimeKind } from '../../runtime/create-runtime.js';
import { detectSandboxSupport } from '../../runtime/sandbox-support.js';
import { createMemorySessionStore } from '../../sessions/memory-session-store.js';
import type { SessionStore } from '../../sessions/session-store.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { containerFlagOptions, containerFlagsHelp, containerOptionsFromFlags } from '../container-flags.js';
import { addMcpSkillServers } from '../mcp-skill-sources.js';
import { oneOf, parseCommandArguments } from '../parse-command-arguments.js';
import { describeLeftOutSkills, openRepositoryFromArgs } from '../skill-roots.js';
import { terminalSafe } from '../terminal-safe-text.js';
import { createChatApprovalPrompt } from './chat-approval-prompt.js';
import { createChatControls } from './chat-controls.js';
import { outputFileNames } from './chat-output-files.js';
import { watchChatSkills } from './chat-skill-watch.js';
import { runSlashCommand } from './chat-slash-commands.js';

const usage = `Usage: skillbox chat [--root DIR]... [--mcp [LABEL=]CMD|URL]... [--session ID] [--once "MESSAGE"]
                    [--materialize system|tool-result] [--load-mode once|turn|session]
                    [--runtime auto|sandbox|local|container] [--db PATH] [--user ID] [--max-steps N]
                    [--output-dir DIR] [--watch] [--approve]

An agent in the terminal over any OpenAI-compatible chat-completions endpoint, with the skills
under the roots, skill scripts run in a workspace, and the conversation kept in SQLite.
Type a message and press Enter; /quit, /exit or Ctrl-D ends the chat (empty lines are ignored).
Lines that start with / are commands, not messages: /help lists them (/skills, /skill NAME,
/model [NAME], /attach PATH [as NAME], /quit).

Options:
  --root DIR         a skills folder; repeat for several (default: the standard roots)
  --mcp SERVER       also use the skills of an MCP server that serves the Skills Extension:
                     a command line (stdio) or an http(s) URL (SKILLBOX_MCP_TOKEN is sent as
                     its bearer token); every file is verified against the server's listing.
                     LABEL names it; a name another origin uses becomes LABEL:NAME. Repeatable.
  --session ID       resume this session, or start a new one with this id (default: a new
                     one, whose id is printed)
  --once MESSAGE     run one turn, print the final answer on stdout and exit
  --materialize M    where loaded skills go in requests: tool-result (default) or system
  --load-mode M      how long loaded skills stay: turn (default), once or session
  --runtime KIND     where scripts run: auto (default: the sandbox when bubblewrap works),
                     sandbox, local or container (with --image)
${containerFlagsHelp}
  --db PATH          the SQLite session file (default ~/.skillbox/sessions.db)
  --user ID          the user the sessions belong to (default $USER, else "local")
  --max-steps N      most model calls in one turn (default 20)
  --output-dir DIR   where the files scripts write are copied after each turn (default
                     ./skillbox-output; out/NAME is saved as DIR/NAME)
  --watch            follow skills added, removed or edited on disk: the next turn sees them
  --approve          ask before every skill_run and workspace_exec, and before text is typed
                     into a background process, showing the exact command, skill and files;
                     answer o (once), a (always for this skill, this session) or d (deny).
                     No answer (end of input) means the command does not run.
                     Without --approve, commands run without asking.

Environment:
  OPENAI_BASE_URL    the endpoint, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1
  SKILLBOX_MODEL     the model id, e.g. gpt-4o-mini
  OPENAI_API_KEY     the API key, when the endpoint needs one

Exit status: 0 when the chat ends, 1 when a turn fails, 2 on bad usage or a missing endpoint.
`;

/** Where output files go when `--output-dir` is not given: a folder of its own, never a project's `out/`. */
export const defaultOutputDir = 'skillbox-output';

const instructions =
  'You are a helpful assistant working in a terminal. When a task matches a skill in the catalog, load it with skill_load and follow its instructions; run its scripts with skill_run.';

export interface ChatArguments {
  roots: string[];
  /** `--mcp` values: MCP servers whose skills are added (see mcp-skill-sources.ts). */
  mcp: string[];
  sessionId?: string;
  once?: string;
  materialize: MaterializationMode;
  loadMode: LoadMode;
  runtime: RuntimeKind;
  /** With `--runtime container`: the image and the daemon (`--image`, `--engine`, `--oci-runtime`). */
  container?: ContainerRuntimeOptions;
  db?: string;
  userId?: string;
  maxSteps: number;
  /** Where output files are copied after each turn (resolved against the chat's folder). */
  outputDir: string;
  /** Follow changes to the skill roots on disk. */
  watch: boolean;
  /** `--approve`: ask a person before each command (chat-approval-prompt.ts). */
  approve?: true;
}

export function parseChatArguments(args: string[]): ChatArguments {
  const { values } = parseCommandArguments({
    args,
    options: {
      root: { type: 'string', multiple: true, default: [] },
      mcp: { type: 'string', multiple: true, default: [] },
      session: { type: 'string' },
      once: { type: 'string' },
      materialize: { type: 'string' },
      'load-mode': { type: 'string' },
      runtime: { type: 'string' },
      db: { type: 'string' },
      user: { type: 'string' },
      'max-steps': { type: 'string' },
      'output-dir': { type: 'string' },
      watch: { type: 'boolean', default: false },
      approve: { type: 'boolean' },
      ...containerFlagOptions,
    },
    allowPositionals: false,
    strict: true,
  });
  const parsed: ChatArguments = {
    roots: values.root ?? [],
    mcp: values.mcp ?? [],
    materialize: oneOf(values.materialize, ['system', 'tool-result'] as const, '--materialize', 'tool-result'),
    loadMode: oneOf(values['load-mode'], loadModes, '--load-mode', 'turn'),
    runtime: oneOf(values.runtime, RUNTIME_KINDS, '--runtime', 'auto'),
    maxSteps: 20,
    outputDir: values['output-dir'] ?? defaultOutputDir,
    watch: values.watch === true,
  };
  const container = containerOptionsFromFlags(parsed.runtime, values);
  if (container !== undefined) parsed.container = container;
  for (const [option, value] of [
    ['--session', values.session],
    ['--output-dir', values['output-dir']],
    ['--once', values.once],
    ['--db', values.db],
    ['--user', values.user],
  ] as const) {
    if (value !== undefined && value.trim() === '') throw new CliUsageError(`${option} needs a non-empty value`);
  }
  if (values.approve === true) parsed.approve = true;
  if (values.session !== undefined) parsed.sessionId = values.session;
  if (values.once !== undefined) parsed.once = values.once;
  if (values.db !== undefined) parsed.db = values.db;
  if (values.user !== undefined) parsed.userId = values.user;
  if (values['max-steps'] !== undefined) {
    const steps = Number(values['max-steps']);
    if (!Number.isInteger(steps) || steps < 1)
      throw new CliUsageError(`--max-steps must be a positive integer; got "${values['max-steps']}"`);
    parsed.maxSteps = steps;
  }
  return parsed;
}

export interface ChatEndpoint {
  baseUrl: string;
  model: string;
  apiKey?: string;
}

/** The endpoint from the environment, or the exact text telling what to set. */
export function readChatEndpoint(env: NodeJS.ProcessEnv): ChatEndpoint | { problem: string } {
  const baseUrl = env.OPENAI_BASE_URL?.trim() ?? '';
  const model = env.SKILLBOX_MODEL?.trim() ?? '';
  const missing = [baseUrl === '' ? 'OPENAI_BASE_URL' : undefined, model === '' ? 'SKILLBOX_MODEL' : undefined].filter(
    (name) => name !== undefined,
  );
  if (missing.length > 0) {
    return {
      problem:
        `no model endpoint is configured (missing: ${missing.join(', ')}). Set:\n` +
        '  OPENAI_BASE_URL  the OpenAI-compatible endpoint, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1\n' +
        '  SKILLBOX_MODEL   the model id, e.g. gpt-4o-mini\n' +
        '  OPENAI_API_KEY   the API key, when the endpoint needs one\n',
    };
  }
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    return { problem: `OPENAI_BASE_URL must be an http(s) URL such as https://api.openai.com/v1; got "${baseUrl}"\n` };
  }
  const apiKey = env.OPENAI_API_KEY?.trim();
  return { baseUrl, model, ...(apiKey ? { apiKey } : {}) };
}

function newSessionId(): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, '')
    .replace('T', '-');
  return `chat-${stamp}-${randomBytes(3).toString('hex')}`;
}

function shorten(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`;
}

function describeOutput(output: unknown): string {
  if (typeof output === 'string') return output;
  if (typeof output === 'object' && output !== null && 'exit_code' in output) {
    const run = output as { exit_code: number; output_files?: Array<{ name: string }> };
    const files = run.output_files?.map((file) => file.name) ?? [];
    return `exit ${run.exit_code}${files.length > 0 ? `, files: ${files.join(', ')}` : ''}`;
  }
  return JSON.stringify(output) ?? '';
}

function runWarnings(output: unknown): string[] {
  if (typeof output !== 'object' || output === null || !('warnings' in output)) return [];
  const warnings = (output as { warnings: unknown }).warnings;
  return Array.isArray(warnings) ? warnings.filter((warning): warning is string => typeof warning === 'string') : [];
}

/**
 * One line per finished tool call: what was called and what came back, then one indented line per
 * warning of a script run (the user, not only the model, must learn that a run was unconfined or
 * its output cut).
 */
export function toolCallLine(
  call: { toolName: string; input: unknown } | undefined,
  result: Extract<SkillAgentEvent, { type: 'tool-result' }>,
): string {
  const input = call === undefined ? '' : ` ${shorten(JSON.stringify(call.input) ?? '', 100)}`;
  const outcome =
    result.error !== undefined ? `failed: ${shorten(result.error, 160)}` : shorten(describeOutput(result.output), 160);
  const warnings = result.error !== undefined ? [] : runWarnings(result.output);
  return `· ${result.toolName}${input} → ${outcome}\n${warnings.map((warning) => `  ! ${shorten(warning, 200)}\n`).join('')}`;
}

/**
 * The notice printed once at start when scripts will run unconfined: what that means and how to
 * get the sandbox on this platform. `reason` is why `auto` could not use the sandbox.
 */
export function isolationBanner(options: {
  requested: RuntimeKind;
  platform: NodeJS.Platform;
  reason?: string;
}): string {
  const why =
    options.requested === 'local'
      ? 'you chose --runtime local'
      : `the sandbox is unavailable${options.reason !== undefined ? ` (${options.reason})` : ''}`;
  const fix =
    options.platform === 'linux'
      ? 'To isolate them, install bubblewrap (apt-get install bubblewrap) and use --runtime auto or --runtime sandbox.'
      : `The sandbox needs Linux (bubblewrap); on ${options.platform === 'darwin' ? 'macOS' : options.platform} run skillbox inside a Linux VM or container to isolate scripts.`;
  return (
    `skillbox chat: WARNING: skill scripts run WITHOUT isolation, because ${why}. ` +
    'They run directly on this machine as you, and can read and change anything you can.\n' +
    `  ${fix}\n`
  );
}

type SqliteModule = typeof import('../../sessions/sqlite/index.js');

async function loadIntegration(io: CliIo): Promise<
  | {
      agentModule: typeof import('../../integrations/ai-sdk/skill-agent.js');
      providerModule: typeof import('@ai-sdk/openai-compatible');
    }
  | undefined
> {
  try {
    // Imported here, not at the top: the other commands should not pay for loading the AI SDK.
    const [agentModule, providerModule] = await Promise.all([
      import('../../integrations/ai-sdk/skill-agent.js'),
      import('@ai-sdk/openai-compatible'),
    ]);
    return { agentModule, providerModule };
  } catch (error) {
    // `ai` and the provider are dependencies of skillbox, so this is a broken install.
    io.stderr(`skillbox chat: cannot load the AI SDK (reinstall skillbox): ${(error as Error).message}\n`);
    return undefined;
  }
}

/**
 * The SQLite session module, or undefined when this runtime has no SQLite driver: better-sqlite3
 * stays an optional peer (a native module that compiles on install would slow every library
 * install), and Node before 22.13 has no built-in one. Without a driver the chat keeps the
 * conversation in memory and says so.
 */
async function loadSqlite(): Promise<SqliteModule | undefined> {
  const sqlite = await import('../../sessions/sqlite/index.js');
  return sqlite.availableSqliteDriver() === undefined ? undefined : sqlite;
}

const noSqliteHint =
  'npm install better-sqlite3, or use Node 22.13 or later, whose built-in node:sqlite needs no install';

async function run(args: string[], io: CliIo): Promise<number> {
  const options = parseChatArguments(args);
  const endpoint = readChatEndpoint(io.env);
  if ('problem' in endpoint) {
    io.stderr(`skillbox chat: ${endpoint.problem}`);
    return 2;
  }
  const modules = await loadIntegration(io);
  if (!modules) return 2;

  const repository = await openRepositoryFromArgs(options.roots, io, 'chat');
  const runtime = createRuntime({
    kind: options.runtime,
    hostFallback: true,
    ...(options.container === undefined ? {} : { container: options.container }),
  });
  if (!runtime.isolated) {
    const support = options.runtime === 'local' ? undefined : detectSandboxSupport();
    io.stderr(
      isolationBanner({
        requested: options.runtime,
        platform: process.platform,
        ...(support !== undefined && !support.available ? { reason: support.reason } : {}),
      }),
    );
  }
  const opened = await openChatSessions(options, io);
  if (typeof opened === 'number') return opened;
  const { sessions, persistent } = opened;
  io.stderr(await describeLeftOutSkills(repository, await repository.list(), 'chat'));
  // Connected last, after every early return, so a started server is always closed below.
  const sources = await addMcpSkillServers(repository, options.mcp, io, 'chat').catch(async (error: unknown) => {
    await sessions.close();
    throw error;
  });
  let watcher: { close(): void } | undefined;
  let workspaces: ReturnType<typeof createWorkspaceManager> | undefined;
  const approvalPrompt = options.approve === true ? createChatApprovalPrompt(io) : undefined;
  try {
    const provider = modules.providerModule.createOpenAICompatible({
      name: 'openai-compatible',
      baseURL: endpoint.baseUrl,
      includeUsage: true,
      ...(endpoint.apiKey !== undefined ? { apiKey: endpoint.apiKey } : {}),
    });
    // One workspace manager for every agent of this chat: `/model` makes a new agent, the session's
    // workspace (attached files, outputs) stays.
    workspaces = createWorkspaceManager({ runtime, repository: sources.repository });
    const makeAgent = (model: string) =>
      modules.agentModule.createSkillAgent({
        model: provider.chatModel(model),
        repository: sources.repository,
        workspaces,
        // A person at the terminal drives servers and interactive programs, and edits files with
        // the model: the process tools and the file tools are on.
        execution: { backgroundProcesses: true, fileTools: true },
        sessions,
        appName: 'skillbox-chat',
        instructions,
        loadMode: options.loadMode,
        materialize: options.materialize,
        maxSteps: options.maxSteps,
        ...(approvalPrompt !== undefined ? { approval: approvalPrompt.approval } : {}),
      });
    let agent = makeAgent(endpoint.model);
    const userId = options.userId ?? io.env.USER ?? 'local';
    const sessionId = options.sessionId ?? newSessionId();
    const outputDir = resolve(io.cwd, options.outputDir);
    const controls = createChatControls({
      repository: sources.repository,
      sessions,
      workspaces,
      key: { appName: 'skillbox-chat', userId, sessionId },
      model: endpoint.model,
      loadMode: options.loadMode,
      onModelChange: (model) => {
        agent = makeAgent(model);
      },
      cwd: io.cwd,
      home: io.env.HOME ?? homedir(),
    });
    if (options.watch) watcher = watchChatSkills(repository, io.stderr);
    const resumed =
      options.sessionId !== undefined &&
      (await sessions.getSession({ appName: 'skillbox-chat', userId, sessionId }, { limit: 0 })) !== undefined;
    io.stderr(`${resumed ? 'resuming session' : 'new session'} ${sessionId} (resume with --session ${sessionId})\n`);

    const turn = (message: string, streaming: boolean): Promise<number> =>
      runChatTurn({ agent, controls, io, userId, sessionId, outputDir }, message, streaming);

    if (options.once !== undefined) return await turn(options.once, false);
    if (!io.stdin) {
      io.stderr('skillbox chat: no standard input to read messages from; use --once "MESSAGE"\n');
      return 2;
    }
    const lines = approvalPrompt?.lines() ?? createInterface({ input: io.stdin, terminal: false });
    let status = 0;
    io.stderr('> ');
    for await (const line of lines) {
      const message = line.trim();
      if (message.startsWith('/')) {
        const outcome = await runSlashCommand(message, controls, io.stdout);
        if (outcome.kind === 'quit') break;
        if (outcome.kind === 'turn') status = await turn(outcome.message, true);
      } else if (message !== '') {
        // A stray Enter is not a message and not a request to leave.
        status = await turn(line, true);
      }
      io.stderr('> ');
    }
    lines.close();
    return status;
  } finally {
    watcher?.close();
    approvalPrompt?.close();
    // Background processes end with the chat. A session kept in a file can be resumed with its
    // workspace (attached files, outputs); one kept in memory cannot, so its workspace goes too.
    await workspaces?.close({ keepWorkspaces: persistent });
    await sessions.close();
    await sources.close();
  }
}

export const chatCommand: CliCommand = {
  name: 'chat',
  usage,
  run,
};

/**
 * Where the conversation is kept: a SQLite file (`--db`, else ~/.skillbox/sessions.db, made
 * readable by the user only), or memory with a warning when no SQLite driver is available; an exit
 * code when `--db` or `--session` asked for a file that cannot be had.
 */
async function openChatSessions(
  options: ChatArguments,
  io: CliIo,
): Promise<{ sessions: SessionStore; persistent: boolean } | number> {
  const sqlite = await loadSqlite();
  if (sqlite === undefined) {
    if (options.db !== undefined || options.sessionId !== undefined) {
      io.stderr(
        `skillbox chat: ${options.db !== undefined ? '--db' : '--session'} needs a SQLite driver to keep sessions in a file, and this runtime has none (${noSqliteHint})\n`,
      );
      return 2;
    }
    io.stderr(
      `skillbox chat: no SQLite driver is available, so this conversation is kept in memory only and cannot be resumed (${noSqliteHint})\n`,
    );
    return { sessions: createMemorySessionStore(), persistent: false };
  }
  const dbPath =
    options.db !== undefined ? resolve(io.cwd, options.db) : join(io.env.HOME ?? homedir(), '.skillbox', 'sessions.db');
  // Conversations may hold anything the user typed or a script printed: only the user may read them.
  mkdirSync(dirname(dbPath), { recursive: true, mode: 0o700 });
  if (!existsSync(dbPath)) closeSync(openSync(dbPath, 'a', 0o600));
  return { sessions: await sqlite.openSqliteSessionStore({ path: dbPath }), persistent: true };
}

/** What a chat turn needs: the current agent (`/model` replaces it), the controls and the terminal. */
interface ChatTurnSettings {
  agent: { run: SkillAgent['run'] };
  controls: ReturnType<typeof createChatControls>;
  io: CliIo;
  userId: string;
  sessionId: string;
  outputDir: string;
}

/**
 * One turn at the terminal: the model's words streamed (or printed at the end with --once), a line
 * per tool call, the output files saved, even from a turn that failed. Returns the exit status.
 */
async function runChatTurn(settings: ChatTurnSettings, message: string, streaming: boolean): Promise<number> {
  const { agent, controls, io, userId, sessionId, outputDir } = settings;
  const calls = new Map<string, { toolName: string; input: unknown }>();
  const toolOut = streaming ? io.stdout : io.stderr;
  const outputNames: string[] = [];
  const pending = controls.takePending();
  let midLine = false;
  try {
    for await (const event of agent.run({
      userId,
      sessionId,
      message: `${pending.notes}${message}`,
      ...(pending.skillLoads.length > 0 ? { skillLoads: pending.skillLoads } : {}),
    })) {
      // The model's words, tool lines and saved file names are not ours: no terminal controls.
      if (event.type === 'text-delta' && streaming) {
        io.stdout(terminalSafe(event.text));
        midLine = !event.text.endsWith('\n');
      } else if (event.type === 'tool-call') {
        calls.set(event.toolCallId, { toolName: event.toolName, input: event.input });
      } else if (event.type === 'tool-result') {
        if (midLine) io.stdout('\n');
        midLine = false;
        toolOut(terminalSafe(toolCallLine(calls.get(event.toolCallId), event)));
        if (event.error === undefined) outputNames.push(...outputFileNames(event.output));
      } else if (event.type === 'done') {
        if (streaming) io.stdout(midLine ? '\n' : '');
        else io.stdout(`${terminalSafe(event.text)}\n`);
      }
    }
    return 0;
  } catch (error) {
    if (midLine) io.stdout('\n');
    io.stderr(`skillbox chat: the turn failed: ${terminalSafe((error as Error).message)}\n`);
    return 1;
  } finally {
    // Files a failed turn's earlier steps wrote are results too.
    if (outputNames.length > 0) toolOut(terminalSafe(await controls.saveOutputs(outputNames, outputDir)));
  }
}
