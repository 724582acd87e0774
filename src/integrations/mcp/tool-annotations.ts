import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { SkillToolName } from '../../tools/tool-names.js';

// The knowledge tools only read skill files; what they change is the session's disclosure state
// (which skills are loaded), which is the server's own bookkeeping, not the host's environment.
const readOnly: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

const workspaceRead: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

// Keyed by the tool-name union: a tool added to tool-names.ts does not compile until it is judged here.
const byName: Record<SkillToolName, ToolAnnotations> = {
  skill_load: readOnly,
  skill_list_docs: readOnly,
  skill_select_docs: readOnly,
  skill_read: readOnly,
  skill_list: readOnly,
  skill_list_tools: readOnly,
  skill_select_tools: readOnly,
  skill_search: readOnly,
  // Skill scripts and workspace commands can write, delete and overwrite files in the workspace,
  // and under the local runtime (or with network allowed) they reach beyond the workspace, so a
  // host should ask before running them.
  skill_run: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  workspace_exec: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  // Input to a running background process can make it do anything a command can; killing one ends work.
  workspace_write_stdin: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  workspace_kill: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  // Reads a process's new output: it changes nothing, but the same call twice returns different output.
  workspace_poll: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  // The file tools stay inside the workspace. Reads change nothing (a command may change the files
  // between two reads, so they are not idempotent); a write replaces a file, an edit rewrites one.
  workspace_list: workspaceRead,
  workspace_read: workspaceRead,
  workspace_glob: workspaceRead,
  workspace_grep: workspaceRead,
  workspace_write: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  workspace_edit: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
};

/** The MCP tool annotations of a skillbox tool, or undefined for a tool skillbox does not know (no claim made). */
export function toolAnnotationsOf(toolName: string): ToolAnnotations | undefined {
  return Object.hasOwn(byName, toolName) ? byName[toolName as SkillToolName] : undefined;
}
