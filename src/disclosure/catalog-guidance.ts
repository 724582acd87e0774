import type { SkillToolName } from '../tools/tool-names.js';

/**
 * The short instructions after the catalog. They name only the tools the model actually has, so
 * the prompt never points at a tool that is not registered.
 */
export function renderCatalogGuidance(tools: readonly string[], options: { shortened?: boolean } = {}): string {
  const has = (name: SkillToolName) => tools.includes(name);
  const lines: string[] = [];
  if (has('skill_search')) {
    lines.push(
      options.shortened === true
        ? 'This list is shortened to fit its budget (descriptions ending in "…" are cut, skills listed by name only are not described): call skill_search with words describing the task to find skills with their full descriptions.'
        : 'skill_search finds skills by words describing a task and returns them with their full descriptions.',
    );
  }
  if (has('skill_load')) {
    lines.push(
      'The list above only says what each skill is for. When a task matches a skill, call skill_load with its name before acting on it; its instructions then appear in your context.',
    );
  } else if (has('skill_read')) {
    lines.push(
      'The list above only says what each skill is for. When a task matches a skill, call skill_read with its name to read its instructions before acting on it.',
    );
  } else {
    lines.push(
      'The list above only says what each skill is for; no tool in this session opens a skill, so use it as a summary only.',
    );
  }
  if (has('skill_list_docs') && has('skill_select_docs')) {
    lines.push(
      'Extra docs of a loaded skill are listed by skill_list_docs and added with skill_select_docs; add only the docs its instructions point to.',
    );
  } else if (has('skill_select_docs')) {
    lines.push('Add extra docs of a loaded skill with skill_select_docs, only those its instructions point to.');
  }
  if (has('skill_read') && has('skill_load'))
    lines.push('skill_read shows one file of a skill (a script, template or reference) without loading it.');
  const toolSelection = [
    has('skill_list_tools') ? 'skill_list_tools names them' : undefined,
    has('skill_select_tools') ? 'skill_select_tools keeps only those the task needs' : undefined,
  ].filter((part) => part !== undefined);
  if (toolSelection.length > 0) lines.push(`A loaded skill may bring tools: ${toolSelection.join(' and ')}.`);
  if (has('skill_run')) {
    lines.push(
      "skill_run runs a command in the skill's folder inside an isolated workspace; write results under out/ and name them in output_files.",
    );
  }
  if (has('workspace_exec')) lines.push("workspace_exec runs a shell command in the session's workspace.");
  // Background processes start only through workspace_exec; the other process tools are named only
  // when registered (a custom profile may carry some of them).
  const processTools = [
    has('workspace_poll') ? 'workspace_poll reads its new output' : undefined,
    has('workspace_write_stdin') ? 'workspace_write_stdin answers its prompts' : undefined,
    has('workspace_kill') ? 'workspace_kill ends it' : undefined,
  ].filter((part) => part !== undefined);
  if (has('workspace_exec') && processTools.length > 0) {
    lines.push(
      `For servers, watchers and interactive programs, workspace_exec with background: true returns a process_id; ${processTools.join(', ')}.`,
    );
  }
  if (!has('skill_run') && !has('workspace_exec')) {
    lines.push(
      'No tool here runs commands: treat the commands a skill describes as reference, and say so when the task needs them run.',
    );
  }
  return lines.map((line) => `- ${line}`).join('\n');
}
