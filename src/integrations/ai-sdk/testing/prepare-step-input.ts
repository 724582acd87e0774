import type { LanguageModel, ModelMessage, PrepareStepFunction, SystemModelMessage, Tool } from 'ai';
import type { SkillCallContext } from '../skill-call-context.js';

type StepInput = Parameters<PrepareStepFunction<Record<string, Tool>>>[0];

/**
 * What ai 7 passes to `prepareStep` (the caller's messages and instructions apart from the step's,
 * the context per tool), built by hand so that a test calls `prepareStep` as ai 7 does whichever
 * major is installed. `conversation` is the caller's messages followed by the responses so far.
 */
export function ai7StepInput(options: {
  stepNumber: number;
  conversation: ModelMessage[];
  context: SkillCallContext | undefined;
  skillToolNames: readonly string[];
  initialInstructions?: string | SystemModelMessage[];
}): StepInput {
  const toolsContext =
    options.context === undefined
      ? {}
      : Object.fromEntries(options.skillToolNames.map((name) => [name, options.context]));
  return {
    model: {} as LanguageModel,
    steps: [],
    stepNumber: options.stepNumber,
    instructions: options.initialInstructions,
    initialInstructions: options.initialInstructions,
    messages: options.conversation,
    initialMessages: options.conversation,
    responseMessages: [],
    toolsContext,
    runtimeContext: {},
  } as unknown as StepInput;
}

/** What ai 6 passes to `prepareStep`: this step's messages and the one `experimental_context`. */
export function ai6StepInput(options: {
  stepNumber: number;
  messages: ModelMessage[];
  context: SkillCallContext | undefined;
}): StepInput {
  return {
    model: {} as LanguageModel,
    steps: [],
    stepNumber: options.stepNumber,
    messages: options.messages,
    experimental_context: options.context,
  } as unknown as StepInput;
}
