import { randomBytes } from 'node:crypto';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { type AskForApproval, askThroughDecide } from '../../approvals/approval-gate.js';
import { describeApprovalRequest } from '../../approvals/approval-text.js';
import { type ApprovalDecision, type ApprovalOptions, approvalDecisions } from '../../approvals/approval-types.js';
import { SkillboxConfigError } from '../../config/config-error.js';
import { validateOptions } from '../../config/validate-options.js';
import { type CatalogBudget, renderCatalogParts } from '../../disclosure/catalog.js';
import { includesNonModelInvocable, type ModelInvocationOptions } from '../../disclosure/model-invocable-skills.js';
import type { SkillContext, SkillRepository } from '../../repository/types.js';
import { createInMemoryStateView, type InMemoryStateView } from '../../state/in-memory-state-view.js';
import { SessionCallQueue } from '../../state/session-call-queue.js';
import { inToolSpan } from '../../telemetry/tool-span.js';
import { createSkillTools, type SkillToolProfile } from '../../tools/create-skill-tools.js';
import { SkillToolError } from '../../tools/errors.js';
import { inputObjectSchema } from '../../tools/skill-tool-support.js';
import type { ToolContext, ToolDefinition } from '../../tools/types.js';
import { installSkillsExtension } from './install-skills-extension.js';
import { renderMcpCatalog } from './mcp-catalog.js';
import { createMcpToolCaller, type McpToolCaller } from './mcp-tool-call.js';
import { skillMcpServerOptionsSchema } from './skill-mcp-server-options-schema.js';
import { toolAnnotationsOf } from './tool-annotations.js';

/** Options of `createSkillMcpServer`: the repository, the tool profile and execution tools, the session and server identity. */
export interface SkillMcpServerOptions extends ModelInvocationOptions {
  repository: SkillRepository;
  /** `knowledge` (default), `full` (needs `executionTools`) or the exact tool names to register. */
  profile?: SkillToolProfile | readonly string[];
  /** The workspace layer's `skill_run` and `workspace_exec` (createExecutionTools). */
  executionTools?: readonly ToolDefinition[];
  /** Visibility context (user, tenant, role) for the repository's filter, fixed for the connection. */
  skillContext?: SkillContext;
  /** Names the connection's workspace; default a fresh `mcp-<random>` per server. */
  sessionId?: string;
  /** The agent the disclosure state belongs to; default `mcp`. */
  agentName?: string;
  /** Keep at most this many loaded skills, evicting the least recently touched. */
  maxLoadedSkills?: number;
  /**
   * Most tokens or characters of the catalog. It is sent twice (instructions and skill_load's
   * description): over the budget, descriptions are shortened, then skills are listed by name
   * only, and the catalog says so. Default `defaultMcpCatalogBudget` (4,000 tokens); `{}` sets no
   * limit.
   */
  catalogBudget?: CatalogBudget;
  /** Skills per `skills/list` page of the Skills Extension (default 50); see docs/mcp.md. */
  skillsPageSize?: number;
  /**
   * `skill_search`: `over-budget` (default) registers it only when the catalog budget shortened the
   * catalog (which then points to it), `always` registers it, `never` does not (docs/skill-search.md).
   */
  skillSearch?: 'over-budget' | 'always' | 'never';
  /** skill_search also indexes SKILL.md bodies (default false: names and descriptions). */
  searchBodies?: boolean;
  /** What the server reports as its name and version to clients; default `skillbox` / `0.1.0`. */
  serverInfo?: { name: string; version: string };
  /**
   * Calls that need a person's approval (docs/approvals.md). Asked through `decide` when given,
   * else through the client's elicitation; a client without elicitation gets the call refused with
   * a message saying approval is required. Requests and decisions go to `approval.onEvent`.
   */
  approval?: ApprovalOptions;
  /** Where failures that are not the model's mistake are reported; default standard error. Never standard output: that is the protocol. */
  log?: (line: string) => void;
}

/**
 * The catalog budget when the caller sets none. The catalog goes to the host twice, and a large
 * skills folder (the 618-skill test corpus) makes it about 40,000 tokens each time, sent with
 * every request; 4,000 tokens (about 15,000 characters, close to the budget Claude Code gives its
 * own skill list) keeps the two copies under 10,000 and leaves a folder of a few dozen skills
 * untouched.
 */
export const defaultMcpCatalogBudget: CatalogBudget = { tokens: 4000 };

/** The server plus the state of its one connection, for callers and tests that want to look inside. */
export interface SkillMcpServer {
  server: McpServer;
  /** Names of the registered tools, in registration order. */
  toolNames: string[];
  /** The text sent as the server's `instructions`: the catalog and how to use the tools. */
  instructions: string;
  /** The connection's disclosure state (committed writes only). */
  state: InMemoryStateView;
  sessionId: string;
  agentName: string;
  /**
   * Tells the connected client the skills changed: skill_load's description gets the new catalog
   * (notifications/tools/list_changed), and notifications/resources/list_changed and
   * notifications/prompts/list_changed are sent. `watchSkillChanges` calls it on disk changes.
   */
  notifySkillsChanged(): Promise<void>;
  /**
   * Ends the connection's session: every tool frees what it holds for it. With the execution tools,
   * its background processes are stopped, and, when the server made the session id up (no
   * `sessionId` option), its workspace is removed, since nobody can name it again. The HTTP server
   * calls it when an MCP session closes and the stdio server when its client goes away; later
   * calls return the first call's promise.
   */
  endSession(): Promise<void>;
  /**
   * True while the session's tools run something no call in flight shows (with the execution
   * tools: a background process or a command). The HTTP server never ends such a session to make
   * room for a new one.
   */
  holdsWork(): boolean;
}

// An MCP host puts tool results into the conversation as they are and cannot rewrite later requests,
// so the texts that speak of content "appearing in your context from the next step" are replaced.
const mcpDescriptions: Record<string, string> = {
  skill_load:
    "Load a skill: returns its SKILL.md instructions, and the docs you name (paths from skill_list_docs). Call it when a task matches a skill below, before acting on it; do not call it to browse, the list already gives each skill's purpose.",
  skill_select_docs:
    'Choose docs of a loaded skill: returns the content of the selected docs. mode add appends to the current selection, replace (the default) sets it; pick every doc you need in one call.',
};

// biome-ignore lint/suspicious/noExplicitAny: any tool definition, whatever its input type.
function objectSchema(definition: ToolDefinition<any, any>): z.ZodObject {
  // MCP tool inputs are JSON objects; a tool whose schema is not an object could not be called. The
  // skill tools' `skill_name` alias is not MCP's: the SDK lists and checks the object itself.
  const object = inputObjectSchema(definition.inputSchema);
  if (object === undefined) {
    throw new SkillboxConfigError('createSkillMcpServer', [
      {
        option: 'executionTools',
        problem: `holds tool "${definition.name}", whose input schema is not a zod object, which MCP cannot describe`,
      },
    ]);
  }
  return object;
}

/**
 * An MCP server offering the skills of `repository` as tools: one connection is one session, with
 * its own disclosure state. Progressive disclosure works without rewriting requests: the catalog is
 * in the server's `instructions` and in `skill_load`'s description, and `skill_load` returns the
 * skill's content itself. Mistakes the model can correct (SkillToolError) come back as tool results
 * with `isError: true` and the message; a failed call leaves the state as it was.
 */
export async function createSkillMcpServer(options: SkillMcpServerOptions): Promise<SkillMcpServer> {
  validateOptions('createSkillMcpServer', skillMcpServerOptionsSchema, options);
  const sessionId = options.sessionId ?? `mcp-${randomBytes(6).toString('hex')}`;
  // The connection's user (from its visibility context) keys the workspace with the session, as for
  // the AI SDK agent: two connections given one session id for different users never share one.
  const userId = options.skillContext?.userId;
  const agentName = options.agentName ?? 'mcp';
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const plan = await planMcpTools(options);
  const server = new McpServer(options.serverInfo ?? { name: 'skillbox', version: '0.1.0' }, {
    instructions: plan.instructions,
    capabilities: { logging: {} },
  });
  // What the host will not be offered, and why (a skill changed since it was locked, a broken
  // SKILL.md), reaches the client's log as well as the server's standard error, which a host
  // seldom shows.
  server.server.oninitialized = () => {
    void sendLeftOutSkills(server, options.repository, log);
  };
  const extension = installSkillsExtension(server.server, {
    repository: options.repository,
    ...(options.skillContext !== undefined ? { skillContext: options.skillContext } : {}),
    includeNonModelInvocable: plan.includeNonModelInvocable,
    ...(options.skillsPageSize !== undefined ? { pageSize: options.skillsPageSize } : {}),
    log,
  });
  const state = createInMemoryStateView();
  const ask: AskForApproval | undefined =
    options.approval === undefined
      ? undefined
      : options.approval.decide !== undefined
        ? askThroughDecide(options.approval.decide)
        : (request) => askThroughElicitation(server, request);
  const session = { sessionId, ...(userId !== undefined ? { userId } : {}), agentName, state };
  const call = createMcpToolCaller({ options, session, ask, handsOutDigests: plan.toolNames.includes('skill_run') });
  const skillLoadTool = registerSkillTools(server, plan, { call, sessionId, agentName, log });
  const notifySkillsChanged = async (): Promise<void> => {
    // Instructions cannot change after initialize; skill_load's description can, and updating it
    // sends notifications/tools/list_changed.
    const fresh = renderMcpCatalog(
      await options.repository.list(options.skillContext),
      plan.toolNames,
      plan.includeNonModelInvocable,
      plan.budget,
      plan.catalogSearch,
    );
    const description = mcpDescriptions.skill_load as string;
    skillLoadTool?.update({ description: fresh === '' ? description : `${description}\n\n${fresh}` });
    await extension.sendListsChanged();
  };
  // A session id the server made up names a workspace nobody can name again: ending it discards it.
  const lifecycle = sessionLifecycle(plan.definitions, session, options.sessionId === undefined, log);
  return {
    server,
    toolNames: plan.toolNames,
    instructions: plan.instructions,
    state,
    sessionId,
    agentName,
    notifySkillsChanged,
    ...lifecycle,
  };
}

/** The tools a connection is offered and the catalog it is told, fixed for the connection. */
interface McpToolPlan {
  // biome-ignore lint/suspicious/noExplicitAny: any tool definition, whatever its input type.
  definitions: ToolDefinition<any, any>[];
  toolNames: string[];
  catalog: string;
  instructions: string;
  includeNonModelInvocable: boolean;
  budget: CatalogBudget;
  catalogSearch: { mode: 'always' | 'over-budget'; offered: boolean };
}

async function planMcpTools(options: SkillMcpServerOptions): Promise<McpToolPlan> {
  const skillSearch = options.skillSearch ?? 'over-budget';
  let definitions = createSkillTools({
    repository: options.repository,
    ...(skillSearch !== 'never' ? { skillSearch: true } : {}),
    ...(options.searchBodies === true ? { searchBodies: true } : {}),
    ...(options.profile !== undefined ? { profile: options.profile } : {}),
    ...(options.executionTools !== undefined ? { executionTools: options.executionTools } : {}),
    ...(options.maxLoadedSkills !== undefined ? { maxLoadedSkills: options.maxLoadedSkills } : {}),
    ...(options.includeNonModelInvocable !== undefined
      ? { includeNonModelInvocable: options.includeNonModelInvocable }
      : {}),
  });
  const summaries = await options.repository.list(options.skillContext);
  const budget = options.catalogBudget ?? defaultMcpCatalogBudget;
  const includeNonModelInvocable = includesNonModelInvocable(options);
  const searchMode = skillSearch === 'always' ? ('always' as const) : ('over-budget' as const);
  const offered = renderCatalogParts({
    skills: summaries,
    tools: definitions.map((definition) => definition.name),
    includeNonModelInvocable,
    budget,
    skillSearch: searchMode,
  }).searchOffered;
  // An MCP tool list is fixed for the connection: skill_search is listed only if this catalog needs it.
  const named = Array.isArray(options.profile) && options.profile.includes('skill_search');
  if (!offered && !named) definitions = definitions.filter((definition) => definition.name !== 'skill_search');
  const toolNames = definitions.map((definition) => definition.name);
  const catalogSearch = { mode: searchMode, offered };
  const catalog = renderMcpCatalog(summaries, toolNames, includeNonModelInvocable, budget, catalogSearch);
  const instructions = catalog === '' ? 'No skills are available.' : catalog;
  return { definitions, toolNames, catalog, instructions, includeNonModelInvocable, budget, catalogSearch };
}

/**
 * Registers each planned tool on the server: its MCP description (skill_load's carries the catalog),
 * input schema and annotations, a tool span around each call, mistakes the model can correct as
 * `isError` results, and the state-writing calls of the session one at a time. Returns skill_load's
 * registration, whose description follows the catalog.
 */
function registerSkillTools(
  server: McpServer,
  plan: McpToolPlan,
  session: { call: McpToolCaller; sessionId: string; agentName: string; log: (line: string) => void },
): RegisteredTool | undefined {
  const { call, sessionId, agentName, log } = session;
  // Calls that may write state run one at a time, each over the committed state in a transaction,
  // so a failed call changes nothing and two loads cannot overwrite each other's loaded order.
  const queue = new SessionCallQueue();
  let skillLoadTool: RegisteredTool | undefined;
  for (const definition of plan.definitions) {
    const description = mcpDescriptions[definition.name] ?? definition.description;
    const registered = server.registerTool(
      definition.name,
      {
        description:
          definition.name === 'skill_load' && plan.catalog !== '' ? `${description}\n\n${plan.catalog}` : description,
        inputSchema: objectSchema(definition),
        ...(toolAnnotationsOf(definition.name) === undefined
          ? {}
          : { annotations: toolAnnotationsOf(definition.name) }),
      },
      async (input: unknown, extra: { signal: AbortSignal; requestId?: string | number }): Promise<CallToolResult> => {
        const run = async (): Promise<CallToolResult> => {
          try {
            // The JSON-RPC request id is the MCP tool call's id.
            const facts = {
              toolName: definition.name,
              toolCallId: extra.requestId === undefined ? undefined : String(extra.requestId),
              description,
              conversationId: sessionId,
            };
            return await inToolSpan(facts, () => call(definition, input, extra.signal, facts.toolCallId));
          } catch (error) {
            if (error instanceof SkillToolError)
              return { content: [{ type: 'text', text: error.message }], isError: true };
            const message = error instanceof Error ? error.message : String(error);
            log(
              `skillbox mcp: ${definition.name} failed: ${error instanceof Error && error.stack !== undefined ? error.stack : message}`,
            );
            return { content: [{ type: 'text', text: `${definition.name} failed: ${message}` }], isError: true };
          }
        };
        if (definition.writesState === false) return run();
        return queue.run(sessionId, agentName, run);
      },
    );
    if (definition.name === 'skill_load') skillLoadTool = registered;
  }
  return skillLoadTool;
}

/** `endSession` and `holdsWork` of a connection, from what its tools say about their sessions. */
function sessionLifecycle(
  // biome-ignore lint/suspicious/noExplicitAny: any tool definition, whatever its input type.
  definitions: readonly ToolDefinition<any, any>[],
  session: ToolContext,
  discard: boolean,
  log: (line: string) => void,
): Pick<SkillMcpServer, 'endSession' | 'holdsWork'> {
  const sessionEnders = [...new Set(definitions.flatMap((definition) => definition.endSession ?? []))];
  const workHolders = [...new Set(definitions.flatMap((definition) => definition.sessionHoldsWork ?? []))];
  let ended: Promise<void> | undefined;
  return {
    endSession: (): Promise<void> => {
      ended ??= (async () => {
        for (const end of sessionEnders) {
          try {
            await end(session, { discard });
          } catch (error) {
            log(
              `skillbox mcp: ending session ${session.sessionId} failed: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
        }
      })();
      return ended;
    },
    holdsWork: (): boolean => workHolders.some((holds) => holds(session)),
  };
}

/** One `notifications/message` warning per skipped skill of the repository's last scan. */
async function sendLeftOutSkills(server: McpServer, repository: SkillRepository, log: (line: string) => void) {
  try {
    const { skipped } = await repository.report();
    for (const entry of skipped)
      await server.server.sendLoggingMessage({
        level: 'warning',
        logger: 'skillbox',
        data: `skill left out of the catalog: ${entry.path}: ${entry.reason}`,
      });
  } catch (error) {
    log(`skillbox mcp: could not send the skipped skills: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Asks the person through the client's elicitation (a form with one choice). A client that cannot
 * elicit, a declined or cancelled form, and a failed request all leave the call unrun.
 */
async function askThroughElicitation(
  server: McpServer,
  request: Parameters<AskForApproval>[0],
): ReturnType<AskForApproval> {
  if (server.server.getClientCapabilities()?.elicitation === undefined) {
    return {
      unanswered:
        'this MCP client cannot ask a person (it does not support elicitation); connect with a client that does, or configure approval.decide on the server, or leave the tool and skill out of approval',
    };
  }
  try {
    const result = await server.server.elicitInput({
      mode: 'form',
      message: `Approve this call?\n${describeApprovalRequest(request)}`,
      requestedSchema: {
        type: 'object',
        properties: {
          decision: {
            type: 'string',
            title: 'Decision',
            oneOf: [
              { const: 'allow-once', title: 'Allow once' },
              {
                const: 'allow-always',
                title: request.skill !== undefined ? 'Always for this skill' : 'Always in this session',
              },
              { const: 'deny', title: 'Deny' },
            ],
          },
        },
        required: ['decision'],
      },
    });
    if (result.action !== 'accept') return { decision: 'deny', source: 'person' };
    const decision = result.content?.decision;
    if (!approvalDecisions.includes(decision as ApprovalDecision))
      return {
        unanswered: `the client answered ${JSON.stringify(decision)}, not one of ${approvalDecisions.join(', ')}`,
      };
    return { decision: decision as ApprovalDecision, source: 'person' };
  } catch (error) {
    return { unanswered: `asking the client failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
