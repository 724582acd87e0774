// `skillbox/testing`: what a project's own tests need. The conformance suites check that a
// third-party WorkspaceRuntime or SessionStore behaves like the built-in ones; the scripted model
// (the AI SDK's mock model answering from a script) and the recording runtime drive and observe an
// agent without a hosted model. They import vitest and `ai/test` (optional peer dependencies), so
// they live on their own subpath and never load from the root entry.

export { conformanceSkillTree } from '../hub/testing/conformance-skill-tree.js';
export {
  describeSkillSourceConformance,
  describeSkillSourceHostileConformance,
  type HostileSourceContent,
  type SourceConformanceHarness,
} from '../hub/testing/source-conformance.js';
export {
  createScriptedModel,
  type ScriptedModel,
  type ScriptedStep,
} from '../integrations/ai-sdk/testing/scripted-model.js';
export {
  createRecordingRuntime,
  type RecordedRun,
  type RecordingRuntime,
} from '../runtime/testing/recording-runtime.js';
export { describeRuntimeConformance } from '../runtime/testing/runtime-conformance.js';
export {
  describeSessionStoreConformance,
  type SessionStoreBackend,
  type SessionStoreConformanceOptions,
} from '../sessions/testing/session-store-conformance.js';
export {
  describeTurnEventFeedConformance,
  type TurnEventFeedBackend,
} from '../sessions/testing/turn-event-feed-conformance.js';
export {
  describeRunLedgerConformance,
  type RunLedgerBackend,
} from '../worker/testing/run-ledger-conformance.js';
