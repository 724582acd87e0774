import type { SkillContext, SkillRepository } from '../repository/types.js';
import { type ModelInvocationOptions, modelInvocableSkills } from './model-invocable-skills.js';

// What the model reads when it calls a tool that is not active in its step. Shared by every
// integration that narrows the tools per step (the AI SDK's prepareStep in place of
// NoSuchToolError, the LangChain middleware, the OpenAI Agents adapter for the SDK's
// tool_not_found), so the wording is the same whichever framework runs the agent.

/** A tool the model called that is not active now, and the skills whose loading would provide it. */
export interface UnavailableToolFacts {
  toolName: string;
  /** Visible skills whose `Tools:` section names it, by name. */
  providedBy: readonly string[];
  /**
   * Loaded skills whose `allowed-tools` leave it out, when that is why it is inactive now (the
   * `enforceAllowedTools` option). Loading or selecting cannot help then, so the text says so
   * instead of sending the model to `skill_load` a skill it already has.
   */
  withheldBy?: readonly string[];
}

/**
 * What the model reads instead of the SDK's generic message: why, and what to call instead. It
 * depends on the repository and, only when `allowed-tools` withholds the tool, on which loaded
 * skills do; so the explanation of an old call stays byte-identical from request to request (a
 * stable, cacheable prefix) until that changes.
 */
export function unavailableToolMessage(facts: UnavailableToolFacts): string {
  const head = `tool "${facts.toolName}" is not available`;
  if (facts.withheldBy !== undefined && facts.withheldBy.length > 0) {
    const names = facts.withheldBy.map((name) => `"${name}"`).join(', ');
    const one = facts.withheldBy.length === 1;
    return (
      `${head}: the loaded skill${one ? '' : 's'} ${names} ${one ? 'restricts' : 'restrict'} the tools to ${one ? 'its' : 'their'} allowed-tools, which do not include it. ` +
      `Loading or selecting skills will not make it available while ${one ? 'that skill is' : 'those skills are'} loaded; continue with the tools you have.`
    );
  }
  if (facts.providedBy.length === 0) {
    return `${head}: no skill lists it in its Tools: section, so it cannot be used in this conversation. Continue with the tools you have.`;
  }
  const names = facts.providedBy.map((name) => `"${name}"`).join(', ');
  return (
    `${head}: it is active only while a skill that lists it in its Tools: section is loaded (${names}) and the tool is selected. ` +
    `Call skill_load with one of these skills first; if the skill is already loaded, call skill_select_tools with {"skill": <skill>, "tools": ["${facts.toolName}"], "mode": "add"}. ` +
    `A loaded skill's allowed-tools can also keep it out.`
  );
}

/** The explanation the model reads for a call to a pool tool that was not active. */
export async function describeUnavailableTool(
  repository: SkillRepository,
  skillContext: SkillContext | undefined,
  toolName: string,
  modelInvocation: ModelInvocationOptions = {},
  /** Loaded skills whose allowed-tools keep the tool out now (see `UnavailableToolFacts.withheldBy`). */
  withheldBy: readonly string[] = [],
): Promise<string> {
  if (withheldBy.length > 0) return unavailableToolMessage({ toolName, providedBy: [], withheldBy });
  const providedBy: string[] = [];
  // Only skills the model is offered are named: a hidden skill must not leak through this message.
  for (const summary of modelInvocableSkills(await repository.list(skillContext), modelInvocation)) {
    try {
      if ((await repository.get(summary.name, skillContext)).tools.includes(toolName)) providedBy.push(summary.name);
    } catch {
      // A skill that cannot be read provides nothing.
    }
  }
  return unavailableToolMessage({ toolName, providedBy });
}
