import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

// The knowledge tools only read skill files; what they change is the session's disclosure state
// (which skills are loaded), which is the server's own bookkeeping, not the host's environment.
const readOnly: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

const byName: Record<string, ToolAnnotations> = {
  skill_load: readOnly,
  skill_list_docs: readOnly,
  skill_select_docs: readOnly,
  skill_read: readOnly,
  skill_list: readOnly,
  skill_list_tools: readOnly,
  skill_select_tools: readOnly,
  // Skill scripts and workspace commands can write, delete and overwrite files in the workspace,
  // and under the local runtime (or with network allowed) they reach beyond the workspace, so a
  // host should ask before running them.
  skill_run: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  workspace_exec: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
};

/** The MCP tool annotations of a skillbox tool, or undefined for a tool skillbox does not know (no claim made). */
export function toolAnnotationsOf(toolName: string): ToolAnnotations | undefined {
  return byName[toolName];
}
