// The names of the model-facing tools, in one dependency-free file. The disclosure layer sits below
// the tools but reads tool results by name (materialisation, compaction, catalog guidance), so it
// imports these types from here; this file imports nothing, so no cycle can form through it.

/** The disclosure tools `createSkillTools` builds, in registration order of the `full` profile. */
export const disclosureToolNames = [
  'skill_list',
  'skill_load',
  'skill_list_docs',
  'skill_select_docs',
  'skill_read',
  'skill_list_tools',
  'skill_select_tools',
  'skill_search',
] as const;

/**
 * The tools `createExecutionTools` builds from a workspace manager: the last three only when the
 * runtime can start background processes (docs/long-running-commands.md).
 */
export const executionToolNames = [
  'skill_run',
  'workspace_exec',
  'workspace_write_stdin',
  'workspace_poll',
  'workspace_kill',
] as const;

/**
 * The file tools over the session's workspace (docs/file-tools.md), built with the execution tools
 * when `fileTools` is on: list, read, write, edit, glob, grep.
 */
export const workspaceFileToolNames = [
  'workspace_list',
  'workspace_read',
  'workspace_write',
  'workspace_edit',
  'workspace_glob',
  'workspace_grep',
] as const;

/** A disclosure tool's name. */
export type DisclosureToolName = (typeof disclosureToolNames)[number];

/** An execution tool's name. */
export type ExecutionToolName = (typeof executionToolNames)[number];

/** A workspace file tool's name. */
export type WorkspaceFileToolName = (typeof workspaceFileToolNames)[number];

/** The name of any tool skillbox defines; other names belong to the caller's own tools. */
export type SkillToolName = DisclosureToolName | ExecutionToolName | WorkspaceFileToolName;

const allToolNames: ReadonlySet<string> = new Set<string>([
  ...disclosureToolNames,
  ...executionToolNames,
  ...workspaceFileToolNames,
]);

/** True when `name` is one of skillbox's own tool names. */
export function isSkillToolName(name: string): name is SkillToolName {
  return allToolNames.has(name);
}
