import { z } from 'zod';
import { isModelInvocable, modelInvocableSkills } from '../disclosure/model-invocable-skills.js';
import { escapeUnsafeCharacters } from '../format/escape-unsafe-characters.js';
import { SkillNotFoundError } from '../repository/errors.js';
import type { Skill, SkillRepository } from '../repository/types.js';
import { loadedKey } from '../state/state-keys.js';
import { SkillToolError } from './errors.js';
import type { ToolContext } from './types.js';

/** Above this many visible skills the `skill` input is a plain string (a huge enum costs tokens on every request). */
export const maxSkillEnumValues = 256;

/** What every skill tool is built with. */
export interface SkillToolSettings {
  repository: SkillRepository;
  /** The `skill` input: an enum of the visible names, or a string. */
  skillSchema: z.ZodType<string>;
  maxLoadedSkills?: number;
  /** Page size of skill_read, in bytes. */
  readPageBytes: number;
  /** Offer skills with `modelInvocable: false` like any other (see `ModelInvocationOptions`). */
  includeNonModelInvocable: boolean;
  /** skill_search also indexes SKILL.md bodies (default: names and descriptions only). */
  searchBodies?: boolean;
}

/**
 * The values of the `skill` enum for these visible names: trimmed, without blanks or repeats,
 * sorted. Empty when the input is a plain string instead: no names, or more than `maxSkillEnumValues`.
 */
export function skillEnumValues(skillNames?: readonly string[]): string[] {
  const names = [...new Set((skillNames ?? []).map((name) => name.trim()).filter((name) => name !== ''))].sort();
  return names.length > maxSkillEnumValues ? [] : names;
}

export function skillNameSchema(skillNames?: readonly string[]): z.ZodType<string> {
  const names = skillEnumValues(skillNames);
  const described = (schema: z.ZodType<string>) =>
    schema.describe('Name of the skill, as listed under "Available skills"');
  if (names.length === 0) return described(z.string().trim().min(1));
  return described(z.enum(names as [string, ...string[]]));
}

/** What a call that names its skill `skill_name` means: the same input with the name under `skill`. */
function renameSkillNameAlias(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  if (!('skill_name' in input) || 'skill' in input) return input;
  const { skill_name: skill, ...rest } = input as Record<string, unknown>;
  return { ...rest, skill };
}

/**
 * A skill tool's input schema that also takes `skill_name` for `skill`, as the tRPC-Agent Python
 * framework's skill tools name it: a model prompted from its documentation sends
 * `skill_load(skill_name="...")`, and that first call should work rather than fail on a missing
 * `skill`. The alias is accepted, not advertised: the JSON Schema the model sees is the object's
 * own (zod describes a preprocess by its target in the "input" direction, the one the AI SDK and
 * the MCP SDK ask for), so the tool description stays one name per thing.
 */
export function acceptingSkillNameAlias<Shape extends z.ZodRawShape>(
  object: z.ZodObject<Shape>,
): z.ZodType<z.output<z.ZodObject<Shape>>> {
  return z.preprocess(renameSkillNameAlias, object);
}

/** The object schema behind a skill tool's input (the target of `acceptingSkillNameAlias`, or the schema itself). */
export function inputObjectSchema(schema: z.ZodType): z.ZodObject | undefined {
  if (schema instanceof z.ZodObject) return schema;
  if (schema instanceof z.ZodPipe && schema.out instanceof z.ZodObject) return schema.out;
  return undefined;
}

/**
 * Checks the input against the tool's schema even when the integration already did, so every
 * caller gets the same model-readable error instead of a framework-specific one.
 */
export function parseToolInput<T>(toolName: string, schema: z.ZodType<T>, input: unknown, example: string): T {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'input'}: ${issue.message}`,
  );
  throw new SkillToolError(`invalid input for ${toolName}: ${problems.join('; ')}. Call it like ${example}.`);
}

function nameList(names: readonly string[], limit = 20): string {
  if (names.length === 0) return '(none)';
  const shown = names.slice(0, limit).join(', ');
  return names.length > limit ? `${shown}, ... (${names.length} in all)` : shown;
}

/** Names of the skills the model is offered, in the repository's order. */
export async function listModelVisibleNames(settings: SkillToolSettings, context: ToolContext): Promise<string[]> {
  const summaries = await settings.repository.list(context.skillContext);
  return modelInvocableSkills(summaries, settings).map((summary) => summary.name);
}

/**
 * The skill as this caller may see it; a hidden skill gets the same answer as an unknown one. A
 * skill that is not model-invocable (`modelInvocable: false`) counts as hidden until it is loaded for this
 * agent: once a caller has put it in the model's view, the model may read and select in it.
 */
export async function getVisibleSkill(settings: SkillToolSettings, name: string, context: ToolContext): Promise<Skill> {
  let skill: Skill | undefined;
  try {
    skill = await settings.repository.get(name, context.skillContext);
  } catch (error) {
    if (!(error instanceof SkillNotFoundError)) throw error;
  }
  if (
    skill !== undefined &&
    (isModelInvocable(skill, settings) || context.state.get(loadedKey(context.agentName, skill.name)) !== undefined)
  )
    return skill;
  throw new SkillToolError(
    `unknown skill "${name}". Use one of the listed skills: ${nameList(await listModelVisibleNames(settings, context))}.`,
  );
}

/** Rejects names that are not items of the skill, naming the ones that are. */
export function requireKnownItems(
  skill: string,
  kind: 'doc' | 'tool',
  items: readonly string[],
  available: readonly string[],
  hint: string,
): void {
  const unknown = items.filter((item) => !available.includes(item)).map(escapeUnsafeCharacters);
  if (unknown.length === 0) return;
  const what =
    unknown.length === 1 ? `${kind} "${unknown[0]}"` : `${kind}s ${unknown.map((item) => `"${item}"`).join(', ')}`;
  const has =
    available.length === 0
      ? `it has no ${kind}s`
      : `its ${kind}s are: ${nameList(available.map(escapeUnsafeCharacters), 50)}`;
  throw new SkillToolError(`skill "${skill}" has no ${what}; ${has}. ${hint}`);
}
