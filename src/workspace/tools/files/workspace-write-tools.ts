import { z } from 'zod';
import { SkillToolError } from '../../../tools/errors.js';
import type { ToolCallDescription, ToolDefinition } from '../../../tools/types.js';
import type { Workspace } from '../../workspace.js';
import type { ResolvedExecutionOptions } from '../execution-options.js';
import { changedLines } from './changed-lines.js';
import { applyExactEdit } from './exact-edit.js';
import { assertWritableName, fileToolPath } from './file-tool-path.js';
import { assertWriteFits, fileToolLimits, sessionWorkspace } from './file-tool-support.js';
import { numberedLines } from './numbered-lines.js';
import { readWorkspaceTextFile } from './read-workspace-file.js';

const writeInput = z.object({
  path: z
    .string()
    .min(1)
    .describe('File to create or replace, relative to the workspace root (e.g. work/draft.md, out/result.json).'),
  content: z.string().describe('The whole new content of the file.'),
});
type WriteInput = z.infer<typeof writeInput>;

const editInput = z.object({
  path: z.string().min(1).describe('Text file to edit, relative to the workspace root.'),
  old_string: z
    .string()
    .describe(
      'Exact text to replace, as the file holds it (without workspace_read line numbers). Must occur once unless replace_all.',
    ),
  new_string: z.string().describe('Text to put in its place.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence of old_string (default false).'),
});
type EditInput = z.infer<typeof editInput>;

/** What a write would replace: the file there now, when a regular file is, and whether anything is there. */
interface Target {
  relative: string;
  before: { text: string; sizeBytes: number; mode: number } | undefined;
  exists: boolean;
}

/**
 * Where a write goes and what is there. A link there is replaced, never written through (a link to
 * a skill's source cannot make the write land in the source); a folder there is refused.
 */
async function writeTarget(tool: string, workspace: Workspace, input: string): Promise<Target> {
  const relative = await fileToolPath(tool, 'path', input, workspace);
  assertWritableName(tool, relative, input);
  const entry = await workspace.files.inspect(relative);
  if (entry?.kind === 'directory') throw new SkillToolError(`${tool}: ${relative} is a folder; name a file`);
  if (entry?.kind !== 'file') return { relative, before: undefined, exists: entry !== undefined };
  const file = await readWorkspaceTextFile(tool, workspace, relative, fileToolLimits.maxWriteBytes).catch(
    () => undefined,
  );
  return {
    relative,
    before:
      file === undefined || file.cut ? undefined : { text: file.text, sizeBytes: file.sizeBytes, mode: file.mode },
    exists: true,
  };
}

async function place(
  tool: string,
  options: ResolvedExecutionOptions,
  workspace: Workspace,
  relative: string,
  text: string,
  before: { sizeBytes: number; mode: number } | undefined,
  existed: boolean,
): Promise<number> {
  const data = Buffer.from(text, 'utf8');
  if (data.length > fileToolLimits.maxWriteBytes)
    throw new SkillToolError(
      `${tool}: the new content is ${data.length} bytes; at most ${fileToolLimits.maxWriteBytes} may be written in one call`,
    );
  await assertWriteFits(tool, options, workspace, relative, {
    bytesBefore: before?.sizeBytes ?? 0,
    bytesAfter: data.length,
    creates: !existed,
  });
  // Built aside and renamed into place by `put`; a folder that appeared meanwhile is kept, not replaced.
  await workspace.files.put(
    relative,
    { kind: 'file', mode: (before?.mode ?? 0o644) & 0o777, content: { data } },
    { keepFolder: true },
  );
  return data.length;
}

/** `workspace_write`: creates or replaces a whole file. */
export function createWorkspaceWriteTool(
  options: ResolvedExecutionOptions,
): ToolDefinition<WriteInput, { path: string; bytes: number; created: boolean }> {
  return {
    name: 'workspace_write',
    description:
      'Create or replace a text file in the session workspace with the given content (parent folders are made). For a change inside an existing file, workspace_edit is cheaper.',
    inputSchema: writeInput,
    writesState: false,
    async describeCall(input, context) {
      const workspace = await sessionWorkspace(options, context);
      const target = await workspace.fileWork(() => writeTarget('workspace_write', workspace, input.path), {
        writes: false,
      });
      return fileChangeDescription(target.relative, changedLines(target.relative, target.before?.text, input.content));
    },
    async execute(input, context) {
      const workspace = await sessionWorkspace(options, context);
      return workspace.fileWork(
        async () => {
          const target = await writeTarget('workspace_write', workspace, input.path);
          const bytes = await place(
            'workspace_write',
            options,
            workspace,
            target.relative,
            input.content,
            target.before,
            target.exists,
          );
          return { path: target.relative, bytes, created: !target.exists };
        },
        { writes: true },
      );
    },
  };
}

interface EditResult {
  path: string;
  replacements: number;
  /** The edited region after the change, numbered as workspace_read numbers it. */
  snippet: string;
}

/** `workspace_edit`: exact-text replacement in a text file, which must match once (or replace_all). */
export function createWorkspaceEditTool(options: ResolvedExecutionOptions): ToolDefinition<EditInput, EditResult> {
  const edited = async (workspace: Workspace, input: EditInput) => {
    const relative = await fileToolPath('workspace_edit', 'path', input.path, workspace);
    const file = await readWorkspaceTextFile('workspace_edit', workspace, relative, fileToolLimits.maxWriteBytes);
    if (file.cut)
      throw new SkillToolError(
        `workspace_edit: ${relative} is ${file.sizeBytes} bytes; files over ${fileToolLimits.maxWriteBytes} bytes are edited with workspace_exec`,
      );
    const result = applyExactEdit(file.text, input.old_string, input.new_string, {
      replaceAll: input.replace_all === true,
    });
    if (!result.ok) throw new SkillToolError(`workspace_edit: ${file.path}: ${result.message}`);
    return { file, text: result.text, replacements: result.replacements, firstLine: result.firstLine };
  };
  return {
    name: 'workspace_edit',
    description:
      'Edit a text file in the session workspace by exact replacement: old_string must match the file exactly once (copy it from workspace_read without the line numbers), or set replace_all.',
    inputSchema: editInput,
    writesState: false,
    async describeCall(input, context) {
      const workspace = await sessionWorkspace(options, context);
      const { file, text } = await workspace.fileWork(() => edited(workspace, input), { writes: false });
      return fileChangeDescription(file.path, changedLines(file.path, file.text, text));
    },
    async execute(input, context) {
      const workspace = await sessionWorkspace(options, context);
      return workspace.fileWork(
        async () => {
          const { file, text, replacements, firstLine } = await edited(workspace, input);
          await place('workspace_edit', options, workspace, file.path, text, file, true);
          const added = input.new_string.split('\n').length;
          const around = numberedLines(text, Math.max(1, firstLine - 3), added + 6);
          return { path: file.path, replacements, snippet: around.text };
        },
        { writes: true },
      );
    },
  };
}

function fileChangeDescription(path: string, diff: string): ToolCallDescription {
  return { stagedSkills: [], stagedFiles: [], inputs: [], outputs: [], fileChanges: [{ path, diff }] };
}
