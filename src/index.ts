// The root entry, `skillbox`: what an application needs to give an agent skills. Every name here is
// a decision recorded in api/skillbox.api.md and described in docs/api.md; building blocks for
// framework authors are on `skillbox/disclosure`, everything else is internal. Names are listed one
// by one (no `export *`) so a new export in a leaf file never becomes public by accident. At run time
// importing one name loads every file of this entry's bundle (scripts/bundle-dist.mjs: one file per
// entry plus the chunks entries share), whichever names the caller uses: a Node import is not
// tree-shaken (`node scripts/count-loaded-modules.mjs skillbox <name>` counts the files); only a
// bundler prunes by name. So a module reached from here keeps heavy packages (zod aside, which the
// tool schemas need at definition) to the functions that use them: the YAML library loads on first
// use (format/yaml-library.ts).

// A person in the loop before commands run (docs/approvals.md).
export { describeApprovalRequest } from './approvals/approval-text.js';
export {
  type ApprovalDecision,
  type ApprovalEvent,
  type ApprovalOptions,
  type ApprovalOutcome,
  type ApprovalRequest,
  type ApprovalSource,
  approvalDecisions,
  approvalEventTypes,
} from './approvals/approval-types.js';
// Bad options of any factory: one error naming the component, the option and the problem.
export { type ConfigProblem, SkillboxConfigError } from './config/config-error.js';
// The catalog: what the model sees of every skill before it loads one.
export { type CatalogOptions, renderCatalog } from './disclosure/catalog.js';
// Errors: every deliberate failure is a SkillboxError with a code from SkillboxErrorCode. Classes are
// exported where the error carries fields a caller reads; the others are matched by code.
export { isSkillboxError, SkillboxError, type SkillboxErrorCode, skillboxErrorCodes } from './errors.js';
export { SkillParseError } from './format/errors.js';
export { parseSkillMarkdown } from './format/parse-skill.js';
export { parseSkillDirectory } from './format/parse-skill-directory.js';
export { isRetrySafeSkill, retryMetadataKey } from './format/retry-safe.js';
// SKILL.md: lenient parsing for the runtime, strict validation for authors.
export type { ParsedSkill, ParseSkillOptions } from './format/types.js';
export { validateSkillDirectory } from './format/validate-skill-directory.js';
export { type ValidateSkillTextOptions, validateSkillText } from './format/validate-skill-text.js';
export type { ValidationResult } from './format/validation-result.js';
export { type BundledFileRule, defaultDeniedFileNames } from './repository/bundled-file-rule.js';
export { combineRepositories } from './repository/combine-repositories.js';
export { createBundledFileRule } from './repository/create-bundled-file-rule.js';
export {
  SkillFileReadError,
  type SkillFileReadProblem,
  StrictRepositoryError,
  UnusableSkillRootError,
} from './repository/errors.js';
export { type FilteredSkillRepository, filterSkills, type SkillVisibility } from './repository/filter-skills.js';
export { createFsSkillRepository, FsSkillRepository } from './repository/fs-skill-repository.js';
export type { FsSkillRepositoryOptions } from './repository/fs-skill-repository-options.js';
export type { SkillChangeEvent, SkillWatcher, SkillWatchOptions } from './repository/fs-skill-watch.js';
export {
  createMemorySkillRepository,
  type MemorySkillDefinition,
  type MemorySkillRepositoryOptions,
} from './repository/memory-skill-repository.js';
export { LockedSkillError, SkillsLockError } from './repository/skills-lock-errors.js';
export { type StandardRootsOptions, standardSkillRoots } from './repository/standard-roots.js';
// Repositories: where skills come from.
export type {
  RepositoryReport,
  ShadowedSkill,
  Skill,
  SkillContext,
  SkillRepository,
  SkillSummary,
  SkippedSkill,
} from './repository/types.js';
export { resolveUrlRoot, type UrlRootOptions } from './repository/url-root.js';
export { UrlRootError } from './repository/url-root-errors.js';
export {
  createRequirementChecker,
  type RequirementCheck,
  type RequirementChecker,
  type RequirementCheckerOptions,
} from './requirements/check-requirements.js';
export { gateRepository, type UnmetRequirementsMode } from './requirements/gated-repository.js';
export {
  type RequirementsReading,
  readSkillRequirements,
  type SkillRequirements,
} from './requirements/skill-requirements.js';
export {
  type ContainerRuntime,
  type ContainerRuntimeOptions,
  createContainerRuntime,
} from './runtime/container/container-runtime.js';
export { ContainerFilesError } from './runtime/container/container-workspace-files.js';
export { ContainerEngineError } from './runtime/container/engine-client.js';
export { type CreateRuntimeOptions, createRuntime, type RuntimeKind } from './runtime/create-runtime.js';
export { RuntimeCommandError, SandboxUnavailableError, WorkspacePathError } from './runtime/errors.js';
export { HostWorkspaceFiles } from './runtime/host-workspace-files.js';
export { LocalRuntime, type LocalRuntimeOptions } from './runtime/local-runtime.js';
// Runtimes: where skill scripts run.
export type {
  RuntimeProcess,
  RuntimeProcessCommand,
  RuntimeProcessExit,
  RuntimeProcessOutput,
} from './runtime/runtime-process.js';
export type { RuntimeCommand, RuntimeResult, WorkspaceRuntime } from './runtime/runtime-types.js';
export { SandboxRuntime, type SandboxRuntimeOptions } from './runtime/sandbox-runtime.js';
export { detectSandboxSupport, type SandboxSupport } from './runtime/sandbox-support.js';
// The one check of a command's fields, made above the runtime: a runtime need not repeat it.
export { validateRuntimeCommand } from './runtime/validate-command.js';
// The file side of the runtime contract, for runtimes whose workspaces are not host folders.
export type {
  EntryInfo,
  FileContent,
  ListedEntry,
  ListOptions,
  PlacedTree,
  PutOptions,
  PutResult,
  ResolvedPath,
  TreeEntry,
  WorkspaceFiles,
  WorkspaceSizeLimits,
  WorkspaceUsage,
} from './runtime/workspace-files.js';
export {
  createSkillSearch,
  type SkillSearch,
  type SkillSearchHit,
  type SkillSearchOptions,
} from './search/skill-search.js';
export { appendEventsOnce } from './sessions/append-events-once.js';
export {
  type ClearTemporaryStateOptions,
  type ClearTemporaryStateResult,
  clearTemporaryState,
} from './sessions/clear-temporary-state.js';
export { createMemorySessionStore } from './sessions/memory-session-store.js';
// Turn feeds: a turn's live events, resumable from the client's last one (Redis on its subpath).
export { createMemoryTurnEventFeed, type MemoryTurnEventFeedOptions } from './sessions/memory-turn-event-feed.js';
export { SessionConflictError, TurnFeedCursorError, TurnFeedEndedError } from './sessions/session-errors.js';
// Sessions: the store contract and the in-memory store (SQLite, Redis, PostgreSQL on their subpaths).
export type {
  AppendEventsOptions,
  AppendEventsResult,
  CreateSessionOptions,
  GetSessionOptions,
  ListSessionsOptions,
  NewSessionEvent,
  Session,
  SessionEvent,
  SessionEventUsage,
  SessionKey,
  SessionStore,
  SessionSummary,
} from './sessions/session-store.js';
export type {
  FeedEvent,
  PublishFeedOptions,
  ReadFeedOptions,
  TurnEventFeed,
  TurnFeedKey,
} from './sessions/turn-event-feed.js';
export { createInMemoryStateView, type InMemoryStateView } from './state/in-memory-state-view.js';
export type { StateDelta } from './state/state-delta.js';
export type { StateView } from './state/state-view.js';
// Model-facing tools.
export { createSkillTools, type SkillToolProfile, type SkillToolsOptions } from './tools/create-skill-tools.js';
export type { SkillToolName } from './tools/tool-names.js';
export type { ToolCallDescription, ToolContext, ToolDefinition } from './tools/types.js';
export { BackgroundProcessError, WorkspaceManagerClosedError } from './workspace/errors.js';
export type {
  ArtifactAddress,
  ArtifactStore,
  ArtifactVersion,
  StoredArtifact,
} from './workspace/outputs/artifact-store.js';
export {
  createFilesystemArtifactStore,
  type FilesystemArtifactStore,
  type FilesystemArtifactStoreOptions,
} from './workspace/outputs/filesystem-artifact-store.js';
export type { BackgroundProcessOptions } from './workspace/tools/background-process-options.js';
export type { ExecutionToolsOptions } from './workspace/tools/execution-options.js';
export { createExecutionTools } from './workspace/tools/execution-tools.js';
export type { ProcessPollResult } from './workspace/tools/process-result.js';
export type { SkillRunResult } from './workspace/tools/run-result.js';
export type { Workspace } from './workspace/workspace.js';
// Workspaces: per-session folders, skill_run and workspace_exec, output files and artifacts.
export {
  createWorkspaceManager,
  type WorkspaceManager,
  type WorkspaceManagerOptions,
} from './workspace/workspace-manager.js';
export type { BackgroundProcessRecord, WorkspaceProcesses } from './workspace/workspace-processes.js';
export type {
  WorkspaceRunOutcome,
  WorkspaceRunRequest,
  WorkspaceStartRequest,
} from './workspace/workspace-requests.js';
