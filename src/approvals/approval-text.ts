import { escapeUnsafeCharacters } from '../format/escape-unsafe-characters.js';
import type { ApprovalRequest } from './approval-types.js';

/** Most staged files listed one by one; a skill with more is summarised by count. */
const maxListedFiles = 20;

/**
 * One value as a person reads it: every control, format and separator character written as
 * `\uXXXX`. Names come from skill authors (file names), the model (command, cwd, globs) and a
 * workspace a command could write; a carriage return, an escape sequence or a line break in one
 * would otherwise overwrite the start of a line in a terminal or add a line that looks like ours.
 */
const shown = escapeUnsafeCharacters;

const shownList = (values: readonly string[]): string => values.map(shown).join(', ');

/**
 * The command's lines: one line after `command:`, or, for a script of several lines, each line
 * indented below it behind `| `, so no line of the command can pass for a field of the request. A
 * final line break ends the last line (text sent to a shell ends with one) instead of adding one.
 */
function commandLines(command: string): string[] {
  const lines = command.replace(/\n$/, '').split('\n');
  if (lines.length === 1) return [`  command: ${shown(lines[0] as string)}`];
  return [`  command (${lines.length} lines):`, ...lines.map((line) => `    | ${shown(line)}`)];
}

/**
 * A request as a person reads it before answering: the tool and skill, the exact command, and the
 * files the call stages, places and collects. Shared by the terminal prompt and MCP elicitation so
 * a person sees the same facts either way. Every value is escaped (`shown`): the only line breaks
 * are the ones between the request's own lines.
 */
export function describeApprovalRequest(request: ApprovalRequest): string {
  const lines = [
    `${shown(request.tool)}${request.skill !== undefined ? ` of skill "${shown(request.skill)}"` : ''} wants to run:`,
  ];
  if (request.command !== undefined) lines.push(...commandLines(request.command));
  if (request.cwd !== undefined) lines.push(`  in: ${shown(request.cwd)}`);
  // A file change is shown as its diff, which says all the input does (the whole content would repeat it).
  if (request.command === undefined && request.fileChanges === undefined)
    lines.push(`  input: ${shown(JSON.stringify(request.input) ?? 'undefined')}`);
  for (const change of request.fileChanges ?? [])
    lines.push(`  changes ${shown(change.path)}:`, ...change.diff.split('\n').map((line) => `    | ${shown(line)}`));
  if (request.stagedSkills.length > 0)
    lines.push(`  skills placed in the workspace: ${shownList(request.stagedSkills)}`);
  if ((request.skillsInWorkspace?.length ?? 0) > 0)
    lines.push(`  other skills in the workspace (reachable): ${shownList(request.skillsInWorkspace ?? [])}`);
  if (request.stagedFiles.length > 0) {
    const listed = request.stagedFiles.slice(0, maxListedFiles);
    const more = request.stagedFiles.length - listed.length + (request.stagedFilesLeftOut ?? 0);
    lines.push(`  files staged: ${shownList(listed)}${more > 0 ? ` and ${more} more` : ''}`);
  }
  for (const input of request.inputs)
    lines.push(`  input file: ${shown(input.from)}${input.to !== undefined ? ` -> ${shown(input.to)}` : ''}`);
  if (request.outputs.length > 0) lines.push(`  files collected: ${shownList(request.outputs)}`);
  // They keep running after the answer and reach what this call places in the workspace.
  for (const process of request.backgroundProcesses ?? [])
    lines.push(
      `  running beside it: ${shown(process.id)} (command: ${shown(process.command)}; started beside: ${
        process.skills.length > 0 ? shownList(process.skills) : 'no skills'
      })`,
    );
  const always = shownList(request.remembers.map((subject) => subject.replace(/^(skill|tool):/, '')));
  lines.push(`  "always" approves ${always} for the rest of this session.`);
  return lines.join('\n');
}
