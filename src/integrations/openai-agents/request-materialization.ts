import type { AgentInputItem } from '@openai/agents';
import { type MaterializationMode, materializeRequest } from '../../disclosure/materialize-request.js';
import type { ModelMessage, ToolResultOutput } from '../../disclosure/model-messages.js';
import type { ResolvedLoadedSkill } from '../../disclosure/resolve-loaded-skills.js';
import type { SkillRepository } from '../../repository/types.js';
import type { SkillRunBinding } from './skill-run-binding.js';

/** One model call's request as the SDK's input filter sees it: the instructions and the input items. */
export interface AgentsModelInput {
  input: AgentInputItem[];
  instructions?: string;
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (typeof output === 'object' && output !== null && (output as { type?: unknown }).type === 'text')
    return String((output as { text?: unknown }).text ?? '');
  return JSON.stringify(output);
}

/**
 * The items as the disclosure layer's messages, one message per item: function calls and their
 * results keep what materialisation reads (call id, tool name, input, output text); every other
 * item is a placeholder it passes over, so message `i` is item `i` again afterwards.
 */
function toNeutral(items: readonly AgentInputItem[]): ModelMessage[] {
  return items.map((item): ModelMessage => {
    if (item.type === 'function_call')
      return {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: item.callId, toolName: item.name, input: parsedArguments(item.arguments) },
        ],
      };
    if (item.type === 'function_call_result')
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: item.callId,
            toolName: item.name,
            output: { type: 'text', value: outputText(item.output) },
          },
        ],
      };
    return { role: 'user', content: '' };
  });
}

function textOf(output: ToolResultOutput): string | undefined {
  return output.type === 'text' ? output.value : undefined;
}

/**
 * The request of one model call with the agent's loaded skills in it: into the latest
 * `skill_load` / `skill_select_docs` result of each skill (`tool-result`, so the instructions and
 * every earlier item stay byte-identical), or appended to the instructions (`system`). A skill
 * loaded without a tool call (declared) goes after the instructions. The stored items keep the
 * stub the tool returned: only this request carries the content.
 */
export async function materializeAgentsInput(options: {
  modelInput: AgentsModelInput;
  binding: SkillRunBinding;
  agentName: string;
  repository: SkillRepository;
  mode: MaterializationMode;
  loadedSkills: readonly ResolvedLoadedSkill[];
}): Promise<AgentsModelInput> {
  const { modelInput, binding } = options;
  const system: ModelMessage[] =
    modelInput.instructions === undefined ? [] : [{ role: 'system', content: modelInput.instructions }];
  const materialized = await materializeRequest({
    messages: [...system, ...toNeutral(modelInput.input)],
    state: binding.session.state,
    agentName: options.agentName,
    repository: options.repository,
    mode: options.mode,
    loadedSkills: options.loadedSkills,
    ...(binding.skillContext !== undefined ? { skillContext: binding.skillContext } : {}),
  });
  // Materialisation adds system text only before the first item; the rest is the items, in order.
  const firstItem = materialized.findIndex((message) => message.role !== 'system');
  const leading = firstItem === -1 ? materialized : materialized.slice(0, firstItem);
  const messages = firstItem === -1 ? [] : materialized.slice(firstItem);
  const input = modelInput.input.map((item, index) => {
    const message = messages[index];
    if (item.type !== 'function_call_result' || message?.role !== 'tool') return item;
    const part = message.content[0];
    const text = part?.type === 'tool-result' ? textOf(part.output) : undefined;
    if (text === undefined || text === outputText(item.output)) return item;
    return { ...item, output: { type: 'text' as const, text } };
  });
  const instructions = leading.map((message) => (message.role === 'system' ? message.content : '')).join('\n\n');
  return { input, ...(instructions !== '' || modelInput.instructions !== undefined ? { instructions } : {}) };
}
