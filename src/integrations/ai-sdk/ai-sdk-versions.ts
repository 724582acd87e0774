import type { ModelMessage, SystemModelMessage } from 'ai';
import type { SkillCallContext } from './skill-call-context.js';

// skillbox supports ai 6 and ai 7 with one build. The two majors differ in three places this
// integration depends on, and this file is the only one that knows both shapes:
// - where a call's context travels: ai 6 has one `experimental_context` for the whole call; ai 7
//   has `toolsContext`, a context per tool name, handed to that tool as `context`;
// - what `prepareStep` receives: ai 6 passes the messages of this step as the SDK built them;
//   ai 7 passes the messages the previous `prepareStep` returned (its overrides carry forward),
//   plus `initialMessages`, `responseMessages` and the caller's `initialInstructions`;
// - what a finished step reports: ai 6's `response.messages` holds every step so far, ai 7's only
//   that step's.
// Each function below reads whichever shape it is given, so no code elsewhere asks for a version.

/** The settings that carry a SkillCallContext into one `generateText` / `streamText` / agent call, for ai 6 and ai 7 alike. */
export interface SkillContextCallOptions {
  /** ai 6: the context of the whole call. ai 7 ignores it. */
  experimental_context: SkillCallContext;
  /**
   * ai 7: the context of each skill tool (and of `prepareStep`): at run time a record of the
   * SkillCallContext by skill tool name; ai 6 ignores it. Typed `never` so that the spread
   * compiles on both: ai 7 types the `toolsContext` of tools without a `contextSchema` as absent,
   * and a skill tool declares none (ai 6 tools cannot).
   */
  toolsContext: never;
}

/**
 * The call options that carry a skill call context to the skill tools and `prepareStep`, under both
 * ai 6's `experimental_context` and ai 7's `toolsContext`: spread them into `generateText` / `streamText`.
 */
export function skillContextCallOptions(
  context: SkillCallContext,
  skillToolNames: readonly string[],
): SkillContextCallOptions {
  const toolsContext = Object.fromEntries(skillToolNames.map((name) => [name, context]));
  return { experimental_context: context, toolsContext: toolsContext as never };
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && name in value
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

/** The context a tool call carries: ai 7's `context` (the tool's entry in `toolsContext`), else ai 6's `experimental_context`. */
export function contextOfToolCall(executionOptions: unknown): unknown {
  return field(executionOptions, 'context') ?? field(executionOptions, 'experimental_context');
}

/** The context a `prepareStep` call carries: ai 6's `experimental_context`, else the first skill tool's entry in ai 7's `toolsContext`. */
export function contextOfStep(step: unknown, skillToolNames: readonly string[]): unknown {
  const shared = field(step, 'experimental_context');
  if (shared !== undefined) return shared;
  const perTool = field(step, 'toolsContext');
  for (const name of skillToolNames) {
    const context = field(perTool, name);
    if (context !== undefined) return context;
  }
  return undefined;
}

/** True for ai 7's `prepareStep` input, which carries the caller's instructions and messages apart from this step's. */
export function isInstructionsStep(step: unknown): boolean {
  return typeof step === 'object' && step !== null && 'initialMessages' in step && 'responseMessages' in step;
}

/**
 * The conversation as the caller and the model wrote it, without anything an earlier `prepareStep`
 * added: on ai 7 the SDK would otherwise hand back last step's materialised request (skill bodies
 * and all), and a skill unloaded since would stay in the request.
 */
export function conversationOfStep(step: { messages: ModelMessage[] }): ModelMessage[] {
  if (!isInstructionsStep(step)) return step.messages;
  const initial = field(step, 'initialMessages') as ModelMessage[];
  const responses = field(step, 'responseMessages') as ModelMessage[];
  const steering = (field(step, 'experimental_steeringMessages') as ModelMessage[] | undefined) ?? [];
  return [...initial, ...responses, ...steering];
}

/** The caller's own system text on ai 7 (`instructions` / `system` of the call), as system messages. ai 6 does not tell `prepareStep`. */
export function callerInstructionsOfStep(step: unknown): SystemModelMessage[] {
  const instructions = field(step, 'initialInstructions');
  if (instructions === undefined || instructions === null || instructions === '') return [];
  if (typeof instructions === 'string') return [{ role: 'system', content: instructions }];
  return (Array.isArray(instructions) ? instructions : [instructions]) as SystemModelMessage[];
}

/** The response messages of every finished step, given those before and the step that just finished. */
export function responseMessagesAfterStep(
  before: readonly ModelMessage[],
  step: { response: { messages: ModelMessage[] } },
): ModelMessage[] {
  // ai 7 step results carry a `toolsContext` and only their own messages; ai 6's carry all so far.
  return 'toolsContext' in step ? [...before, ...step.response.messages] : step.response.messages;
}
