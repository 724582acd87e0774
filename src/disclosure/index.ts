// `skillbox/disclosure`: the building blocks under the tools and the AI SDK runner, for a framework
// author who drives progressive disclosure from their own loop. Every function here is pure over a
// state snapshot and returns a delta; the caller commits it. Names are listed one by one (no
// `export *`); api/skillbox-disclosure.api.md records them and docs/api.md describes each.

export { parseAllowedTools } from '../format/parse-allowed-tools.js';
export { parseToolsSection } from '../format/parse-tools-section.js';
// SKILL.md pieces a framework may need apart from parseSkillMarkdown.
export { type FrontmatterSplit, splitFrontmatter } from '../format/split-frontmatter.js';
// State: snapshots in, deltas out.
export { applyDelta, mergeDeltas, overlayState, type StateDelta, type StateReader } from '../state/state-delta.js';
// The catalog and which skills the model may see.
export {
  type CatalogBudget,
  type CatalogFormat,
  type CatalogLocation,
  type CatalogReport,
  maxCatalogDescriptionLength,
  renderCatalogWithReport,
} from './catalog.js';
export {
  type CompactableOccurrence,
  type CompactSkillContentOptions,
  compactedLoadStub,
  compactSkillContent,
} from './compact-skill-content.js';
export { applyDeclaredLoads, type DeclaredLoadsOptions, type DeclaredSkillLoad } from './declared-loads.js';
export type { LoadMode } from './load-mode.js';
export { renderLoadedSkill } from './loaded-content.js';
export { type LoadedSkill, readLoadedSkills } from './loaded-skills.js';
export { type MaterializationMode, type MaterializeRequestOptions, materializeRequest } from './materialize-request.js';
export {
  isModelInvocable,
  type ModelInvocationOptions,
  modelInvocableSkills,
} from './model-invocable-skills.js';
// Loaded content in model requests. The message types are structurally a subset of the AI SDK's
// ModelMessage and are exported under a Skill prefix so an application importing both packages
// never has two different types called ModelMessage in scope.
export type { ModelMessage as SkillModelMessage } from './model-messages.js';
export { type ResolvedLoadedSkill, resolveLoadedSkills } from './resolve-loaded-skills.js';
export { activateLoadedSkills, isSkillRunnable } from './skill-activation.js';
// Transitions the tools make, callable directly.
export {
  evictLeastRecentlyTouched,
  type LoadSkillEvent,
  loadSkill,
  type SelectEvent,
  type SelectResult,
  selectDocs,
  selectTools,
  touchSkills,
} from './skill-transitions.js';
// Token counting (o200k_base) and the catalog-versus-full-load report.
export { countTokens, createTokenCounter, type TokenCounter } from './token-counter.js';
export { buildTokenReport, type SkillTokenFigures, type TokenReport, type TokenReportOptions } from './token-report.js';
export { afterModelRequest, beginTurn, clearAgentState, type LifecycleOptions } from './turn-lifecycle.js';
