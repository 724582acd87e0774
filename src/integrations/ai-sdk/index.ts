// The AI SDK integration as a user needs it: the agent, the toolkit for your own generateText /
// streamText / ToolLoopAgent, the per-call context, the tool adapter and the errors to catch. The
// building blocks the agent and the toolkit are made of stay internal (docs/ai-sdk.md, "What is public").
export type { SkillAgentEvent, TokenUsage } from './agent-events.js';
export { MissingSkillCallContextError, TurnAbortedError } from './errors.js';
export {
  createSkillAgent,
  type SkillAgent,
  type SkillAgentCallOptions,
  type SkillAgentOptions,
  type SkillAgentRunOptions,
} from './skill-agent.js';
export { createSkillCallContext, type SkillCallContext } from './skill-call-context.js';
export { createSkillToolkit, type SkillToolkit, type SkillToolkitOptions } from './skill-toolkit.js';
export { type ToolAdapterOptions, toAiSdkTools } from './tool-adapter.js';
export {
  createVisibleSkillToolkits,
  type VisibleSkillToolkits,
  type VisibleSkillToolkitsOptions,
} from './visible-skill-toolkits.js';
