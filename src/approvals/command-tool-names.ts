import type { SkillToolName } from '../tools/tool-names.js';

// Keyed by the tool-name union: a tool added to tool-names.ts does not compile until someone decides
// here whether a person should be asked before it runs. A tool that starts a command, or types into
// a running one, can do anything a command can; the rest read skills or the session's own state.
const runsOrSteersCommands: Record<SkillToolName, boolean> = {
  skill_list: false,
  skill_load: false,
  skill_list_docs: false,
  skill_select_docs: false,
  skill_read: false,
  skill_list_tools: false,
  skill_select_tools: false,
  skill_search: false,
  skill_run: true,
  workspace_exec: true,
  workspace_write_stdin: true,
  // Reading a process's output changes nothing; ending one stops work the person already allowed.
  workspace_poll: false,
  workspace_kill: false,
  // The file tools start nothing: a write is approved by listing it in `approval.tools`, and the
  // request then shows the change (`fileChanges`).
  workspace_list: false,
  workspace_read: false,
  workspace_write: false,
  workspace_edit: false,
  workspace_glob: false,
  workspace_grep: false,
};

/**
 * The tools the `skillbox` command's `--approve` asks about (chat and mcp alike): those that start
 * a command or send text to a running one.
 */
export const commandToolNames: readonly SkillToolName[] = (Object.keys(runsOrSteersCommands) as SkillToolName[]).filter(
  (name) => runsOrSteersCommands[name],
);
