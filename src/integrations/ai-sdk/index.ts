export { beginStateTransaction, type StateTransaction } from '../../state/state-transaction.js';
export {
  addUsage,
  emptyUsage,
  type SkillAgentEvent,
  type SkillAgentEventType,
  type TokenUsage,
} from './agent-events.js';
export { type SkillContextCallOptions, skillContextCallOptions } from './ai-sdk-versions.js';
export { defaultAllowedToolAliases, enforceAllowedTools, grantedToolNames } from './allowed-tools.js';
export { clientToolOutput } from './client-tool-output.js';
export { selectActiveTools, type ToolSelection, type ToolSelectionOptions } from './dynamic-tool-selection.js';
export { MissingSkillCallContextError, SkillAgentConfigError, TurnAbortedError } from './errors.js';
export type { ExecutionSetupOptions } from './execution-setup.js';
export { windowHistory } from './history-window.js';
export { type CompactionPlan, planCompaction, type SkillCompactionPolicy } from './loaded-content-compaction.js';
export {
  createSkillAgent,
  type SkillAgent,
  type SkillAgentCallOptions,
  type SkillAgentCallSettings,
  type SkillAgentOptions,
  type SkillAgentRunOptions,
} from './skill-agent.js';
export type { PreparedStep, SkillCallContext, StateChange } from './skill-call-context.js';
export {
  createSkillCallContext,
  defaultAgentName,
  isSkillCallContext,
  resolveSkillCallContext,
} from './skill-call-context.js';
export { createSkillPrepareStep, describeUnavailableTool, type SkillPrepareStepOptions } from './skill-prepare-step.js';
export { createSkillToolkit, type SkillToolkit, type SkillToolkitOptions } from './skill-toolkit.js';
export { type ToolAdapterOptions, toAiSdkTool, toAiSdkTools } from './tool-adapter.js';
export {
  explainUnavailableToolCalls,
  findUnavailableToolCalls,
  isUnavailableToolError,
  type UnavailableToolFacts,
  unavailableToolMessage,
} from './unavailable-tool-calls.js';
export {
  createVisibleSkillToolkits,
  defaultMaxCachedToolkits,
  type VisibleSkillToolkits,
  type VisibleSkillToolkitsOptions,
} from './visible-skill-toolkits.js';
