// `skillbox/disclosure`: the building blocks under the tools and the AI SDK runner, for a framework
// author who drives progressive disclosure from their own loop. Every function here is pure over a
// state snapshot and returns a delta; the caller commits it. Names are listed one by one (no
// `export *`); api/skillbox-disclosure.api.md records them and docs/api.md describes each.

// State: snapshots in, deltas out.
export { applyDelta, mergeDeltas, overlayState, type StateDelta, type StateReader } from './state-delta.js';

// Transitions the tools make, callable directly.
export {
  evictLeastRecentlyTouched,
  loadSkill,
  selectDocs,
  selectTools,
  touchSkills,
  type LoadSkillEvent,
  type SelectEvent,
  type SelectResult,
} from './skill-transitions.js';
export { readLoadedSkills, type LoadedSkill } from './loaded-skills.js';
export { activateLoadedSkills, isSkillRunnable } from './skill-activation.js';
export type { LoadMode } from './load-mode.js';
export { afterModelRequest, beginTurn, clearAgentState, type LifecycleOptions } from './turn-lifecycle.js';
export { applyDeclaredLoads, type DeclaredLoadsOptions, type DeclaredSkillLoad } from './declared-loads.js';

// The catalog and which skills the model may see.
export {
  maxCatalogDescriptionLength,
  renderCatalogWithReport,
  type CatalogBudget,
  type CatalogFormat,
  type CatalogReport,
} from './catalog.js';
export { isModelVisible, modelVisibleSkills, type ModelVisibilityOptions } from './model-visibility.js';

// Loaded content in model requests. The message types are structurally a subset of the AI SDK's
// ModelMessage and are exported under a Skill prefix so an application importing both packages
// never has two different types called ModelMessage in scope.
export type { ModelMessage as SkillModelMessage } from './model-messages.js';
export { renderLoadedSkill } from './loaded-content.js';
export { materializeRequest, type MaterializationMode, type MaterializeRequestOptions } from './materialize-request.js';
export { compactSkillContent, type CompactSkillContentOptions } from './compact-skill-content.js';

// Token counting (o200k_base) and the catalog-versus-full-load report.
export { countTokens, createTokenCounter, type TokenCounter } from './token-counter.js';
export { buildTokenReport, type SkillTokenFigures, type TokenReport, type TokenReportOptions } from './token-report.js';

// SKILL.md pieces a framework may need apart from parseSkillMarkdown.
export { splitFrontmatter, type FrontmatterSplit } from '../format/split-frontmatter.js';
export { parseToolsSection } from '../format/parse-tools-section.js';
export { parseAllowedTools } from '../format/parse-allowed-tools.js';
