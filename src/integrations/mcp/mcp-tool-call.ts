import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type AskForApproval, approveToolCall } from '../../approvals/approval-gate.js';
import type { ApprovalOptions } from '../../approvals/approval-types.js';
import { renderLoadedSkill } from '../../disclosure/loaded-content.js';
import { readLoadedSkills } from '../../disclosure/loaded-skills.js';
import { skillInstructionsDigest } from '../../disclosure/skill-instructions-digest.js';
import type { SkillContext, SkillRepository } from '../../repository/types.js';
import type { InMemoryStateView } from '../../state/in-memory-state-view.js';
import { beginStateTransaction } from '../../state/state-transaction.js';
import type { ToolDefinition } from '../../tools/types.js';

/** One MCP tool call of a connection: its definition, input, abort signal and JSON-RPC id. */
export type McpToolCaller = (
  // biome-ignore lint/suspicious/noExplicitAny: any tool definition, whatever its input type.
  definition: ToolDefinition<any, any>,
  input: unknown,
  abortSignal: AbortSignal,
  toolCallId: string | undefined,
) => Promise<CallToolResult>;

/** What a connection's calls share: where skills come from, who asks, the session and its state. */
export interface McpToolCallSettings {
  options: {
    repository: SkillRepository;
    skillContext?: SkillContext;
    approval?: ApprovalOptions;
  };
  session: { sessionId: string; userId?: string; agentName: string; state: InMemoryStateView };
  ask: AskForApproval | undefined;
  /** skill_load hands out the SKILL.md digest skill_run accepts (a client with a session per call). */
  handsOutDigests: boolean;
}

/**
 * How a connection runs one tool call: approval first (an allow-always holds for the connection even
 * when the call then fails), the call in a state transaction committed only when it succeeds, then
 * its result as MCP content: for skill_load and skill_select_docs, the loaded content as the AI SDK
 * integration renders it into requests, since an MCP host cannot rewrite later requests.
 */
export function createMcpToolCaller(settings: McpToolCallSettings): McpToolCaller {
  const { options, session, ask, handsOutDigests } = settings;
  const { state, agentName } = session;
  const skillContext = options.skillContext !== undefined ? { skillContext: options.skillContext } : {};
  return async (definition, input, abortSignal, toolCallId) => {
    if (options.approval !== undefined) {
      const verdict = await approveToolCall({
        options: options.approval,
        definition,
        input,
        context: { ...session, ...(toolCallId !== undefined ? { toolCallId } : {}), ...skillContext },
        ask,
      });
      state.commit();
      if (!verdict.run) return { content: [{ type: 'text', text: verdict.message }], isError: true };
    }
    // Read before the load renders the skill: if SKILL.md changes in between, the model holds newer
    // instructions than the digest names, and skill_run asks for a fresh load instead of running on old ones.
    const digest = definition.name === 'skill_load' && handsOutDigests ? await digestOf(options, input) : undefined;
    const transaction = beginStateTransaction(state);
    const output = await definition.execute(input, {
      ...session,
      state: transaction.view,
      abortSignal,
      ...skillContext,
    });
    transaction.commit();
    state.commit();
    const content: CallToolResult['content'] = [];
    if (definition.name === 'skill_select_docs') content.push({ type: 'text', text: resultText(output) });
    if (definition.name === 'skill_load' || definition.name === 'skill_select_docs') {
      const skill = (input as { skill: string }).skill;
      const rendered = await loadedContent(skill, options, state, agentName, definition.name === 'skill_load');
      content.push({ type: 'text', text: rendered ?? resultText(output) });
      if (digest !== undefined)
        content.push({
          type: 'text',
          text: `skill_digest: ${digest}\nIf a later skill_run finds "${skill}" not loaded (a new session), pass this as its skill_digest.`,
        });
    } else {
      content.push({ type: 'text', text: resultText(output) });
    }
    return { content };
  };
}

function digestOf(options: McpToolCallSettings['options'], input: unknown): Promise<string | undefined> {
  const skill = (input as { skill?: unknown }).skill;
  if (typeof skill !== 'string') return Promise.resolve(undefined);
  return skillInstructionsDigest(options.repository, skill.trim(), options.skillContext).catch(() => undefined);
}

function resultText(output: unknown): string {
  return typeof output === 'string' ? output : (JSON.stringify(output, null, 2) ?? '');
}

/**
 * The loaded content a disclosure tool's call made visible, rendered as the AI SDK integration
 * renders it into requests. `skill_select_docs` leaves the body out: the model received it when it
 * loaded the skill, and the result stays in the host's conversation.
 */
async function loadedContent(
  name: string,
  options: McpToolCallSettings['options'],
  state: InMemoryStateView,
  agentName: string,
  withBody: boolean,
): Promise<string | undefined> {
  const loaded = readLoadedSkills(state, agentName).find((entry) => entry.name === name);
  if (loaded === undefined) return undefined;
  const skill = await options.repository.get(loaded.name, options.skillContext);
  return renderLoadedSkill(withBody ? skill : { ...skill, body: '' }, loaded, options.repository, options.skillContext);
}
