import type { ApprovalRequest } from './approval-types.js';

/** Most staged files listed one by one; a skill with more is summarised by count. */
const maxListedFiles = 20;

/**
 * A request as a person reads it before answering: the tool and skill, the exact command, and the
 * files the call stages, places and collects. Shared by the terminal prompt and MCP elicitation so
 * a person sees the same facts either way.
 */
export function describeApprovalRequest(request: ApprovalRequest): string {
  const lines = [`${request.tool}${request.skill !== undefined ? ` of skill "${request.skill}"` : ''} wants to run:`];
  if (request.command !== undefined) lines.push(`  command: ${request.command}`);
  if (request.cwd !== undefined) lines.push(`  in: ${request.cwd}`);
  if (request.command === undefined) lines.push(`  input: ${JSON.stringify(request.input)}`);
  if (request.stagedSkills.length > 0)
    lines.push(`  skills placed in the workspace: ${request.stagedSkills.join(', ')}`);
  if ((request.skillsInWorkspace?.length ?? 0) > 0)
    lines.push(`  other skills in the workspace (reachable): ${request.skillsInWorkspace?.join(', ')}`);
  if (request.stagedFiles.length > 0) {
    const shown = request.stagedFiles.slice(0, maxListedFiles);
    const more = request.stagedFiles.length - shown.length + (request.stagedFilesLeftOut ?? 0);
    lines.push(`  files staged: ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`);
  }
  for (const input of request.inputs)
    lines.push(`  input file: ${input.from}${input.to !== undefined ? ` -> ${input.to}` : ''}`);
  if (request.outputs.length > 0) lines.push(`  files collected: ${request.outputs.join(', ')}`);
  const always = request.remembers.map((subject) => subject.replace(/^(skill|tool):/, '')).join(', ');
  lines.push(`  "always" approves ${always} for the rest of this session.`);
  return lines.join('\n');
}
