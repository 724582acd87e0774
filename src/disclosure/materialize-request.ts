import { OptionProblems, throwConfigError } from '../config/option-problems.js';
import { compareNames } from '../repository/compare-names.js';
import type { SkillContext, SkillRepository } from '../repository/types.js';
import type { StateReader } from '../state/state-delta.js';
import type { SkillToolName } from '../tools/tool-names.js';
import { createInjectionAllowance, loadedContextHeader, loadedStub, renderLoadedSkill } from './loaded-content.js';
import {
  type ModelMessage,
  type SystemModelMessage,
  type ToolResultOutput,
  type ToolResultPart,
  toolCallInputs,
  toolResultText,
} from './model-messages.js';
import { type ResolvedLoadedSkill, resolveLoadedSkills } from './resolve-loaded-skills.js';

/**
 * Where loaded skills go in a request:
 * - `system`: appended to the first system message (simple; the system message changes when a skill loads);
 * - `tool-result`: into the latest `skill_load` / `skill_select_docs` result of each skill, so the
 *   system message and every earlier message stay byte-identical (a longer cached prefix).
 */
export type MaterializationMode = 'system' | 'tool-result';

/** Input of `materializeRequest`: the transcript, state, repository, load mode and catalog. */
export interface MaterializeRequestOptions {
  /** The request as the transcript has it; never modified. */
  messages: readonly ModelMessage[];
  /** The agent's disclosure state for this request. */
  state: StateReader;
  agentName: string;
  repository: SkillRepository;
  mode?: MaterializationMode;
  /** The catalog (from `renderCatalog`), appended to the first system message unless already in it. */
  catalog?: string;
  skillContext?: SkillContext;
  /**
   * Most bytes of one doc (default 20,000, one skill_read page) and of all docs together (default
   * 100,000) this request carries; a doc past either is cut, with a line naming the skill_read call
   * that continues it. Skills are filled in name order, docs in selection order.
   */
  docLimits?: { maxDocBytes?: number; maxTotalBytes?: number };
  /**
   * The loaded skills as this step resolved them (`resolveLoadedSkills` over the same `state`),
   * shared with tool selection so the repository is asked once per step. Absent: read from `state`
   * and `repository`.
   */
  loadedSkills?: readonly ResolvedLoadedSkill[];
}

/** Tools whose results carry loaded content in `tool-result` mode. */
export const anchorToolNames: readonly string[] = [
  'skill_load',
  'skill_select_docs',
] satisfies readonly SkillToolName[];

function skillFromInput(input: unknown): string | undefined {
  if (typeof input === 'string') {
    try {
      return skillFromInput(JSON.parse(input));
    } catch {
      return undefined;
    }
  }
  if (typeof input !== 'object' || input === null) return undefined;
  const record = input as Record<string, unknown>;
  const name = record.skill ?? record.skill_name;
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : undefined;
}

function isErrorOutput(output: ToolResultOutput): boolean {
  return output.type === 'error-text' || output.type === 'error-json' || output.type === 'execution-denied';
}

/** Where the latest successful load/select result of each skill sits: [message index, part index]. */
function findAnchors(messages: readonly ModelMessage[]): Map<string, [number, number]> {
  const inputs = toolCallInputs(messages);
  const anchors = new Map<string, [number, number]>();
  messages.forEach((message, messageIndex) => {
    if (message.role !== 'tool') return;
    message.content.forEach((part, partIndex) => {
      if (part.type !== 'tool-result' || !anchorToolNames.includes(part.toolName) || isErrorOutput(part.output)) return;
      // The call's input names the skill; the result's text is for the model and is not parsed.
      const skill = skillFromInput(inputs.get(part.toolCallId));
      if (skill !== undefined) anchors.set(skill, [messageIndex, partIndex]);
    });
  });
  return anchors;
}

function withLoadedContent(part: ToolResultPart, skill: string, block: string): ToolResultPart {
  const original = toolResultText(part.output).trim();
  const isStub = original.toLowerCase() === loadedStub(skill).toLowerCase();
  const value = original === '' || isStub ? block : `${original}\n\n${block}`;
  return { ...part, output: { type: 'text', value } };
}

function appendToFirstSystem(messages: ModelMessage[], text: string): void {
  const index = messages.findIndex((message) => message.role === 'system');
  if (index === -1) {
    messages.unshift({ role: 'system', content: text });
    return;
  }
  const system = messages[index] as SystemModelMessage;
  messages[index] = { ...system, content: system.content === '' ? text : `${system.content}\n\n${text}` };
}

/**
 * The request to send: the transcript plus the catalog and the agent's loaded skills. Returns new
 * messages; the input array and its messages are not changed. The same messages, state and
 * repository give the same request. Skills are rendered in name order; a loaded skill the
 * repository no longer offers is left out.
 */
export async function materializeRequest(options: MaterializeRequestOptions): Promise<ModelMessage[]> {
  const mode = options.mode ?? 'system';
  if (mode !== 'system' && mode !== 'tool-result') {
    throwConfigError('materializeRequest', 'mode', `must be "system" or "tool-result"; got ${JSON.stringify(mode)}`);
  }
  const messages = [...options.messages];
  const catalog = options.catalog ?? '';
  if (catalog !== '') {
    const system = messages.find((message): message is SystemModelMessage => message.role === 'system');
    if (system === undefined || !system.content.includes(catalog)) appendToFirstSystem(messages, catalog);
  }

  const loaded = [
    ...(options.loadedSkills ??
      (await resolveLoadedSkills(options.state, options.agentName, options.repository, options.skillContext))),
  ].sort((a, b) => compareNames(a.name, b.name));
  const allowance = createInjectionAllowance(options.docLimits);
  const problems = new OptionProblems('materializeRequest');
  for (const [field, value] of [
    ['maxDocBytes', allowance.maxDocBytes],
    ['maxTotalBytes', allowance.remainingBytes],
  ] as const) {
    if (!Number.isInteger(value) || value < 0)
      problems.add(`docLimits.${field}`, `must be a whole number of bytes; got ${JSON.stringify(value)}`);
  }
  problems.throwIfAny();
  const blocks: { name: string; text: string }[] = [];
  for (const entry of loaded) {
    const skill = entry.skill;
    if (skill === undefined) continue;
    blocks.push({
      name: entry.name,
      text: await renderLoadedSkill(skill, entry, options.repository, options.skillContext, allowance),
    });
  }
  if (blocks.length === 0) return messages;

  if (mode === 'system') {
    appendToFirstSystem(messages, blocks.map((block) => block.text).join('\n\n'));
    return messages;
  }

  const anchors = findAnchors(messages);
  const unanchored: string[] = [];
  for (const block of blocks) {
    const anchor = anchors.get(block.name);
    if (anchor === undefined) {
      unanchored.push(block.text);
      continue;
    }
    const [messageIndex, partIndex] = anchor;
    const message = messages[messageIndex];
    if (message?.role !== 'tool') continue;
    const content = [...message.content];
    content[partIndex] = withLoadedContent(content[partIndex] as ToolResultPart, block.name, block.text);
    messages[messageIndex] = { ...message, content };
  }
  if (unanchored.length > 0) {
    let lastSystem = -1;
    messages.forEach((message, index) => {
      if (message.role === 'system') lastSystem = index;
    });
    messages.splice(lastSystem + 1, 0, {
      role: 'system',
      content: `${loadedContextHeader}\n\n${unanchored.join('\n\n')}`,
    });
  }
  return messages;
}
