import { SkillToolError } from '../../../tools/errors.js';
import { detectMimeType, looksLikeText, sniffBytes } from '../../outputs/mime-type.js';
import type { Workspace } from '../../workspace.js';

/** A text file of the workspace as a file tool reads it, followed through links that stay inside. */
export interface WorkspaceTextFile {
  /** Where the file really is (links inside the workspace followed). */
  path: string;
  text: string;
  sizeBytes: number;
  mode: number;
  /** True when the file is larger than what was read. */
  cut: boolean;
}

/**
 * Reads a regular text file for `tool`: refuses a missing path, a folder, a link that leads out of
 * the workspace (a staged skill's source is read with skill_read), a FIFO or device, and a binary
 * file (named by its MIME type, so the model knows to return it as an output file instead).
 */
export async function readWorkspaceTextFile(
  tool: string,
  workspace: Workspace,
  relative: string,
  maxBytes: number,
): Promise<WorkspaceTextFile> {
  const [resolved] = await workspace.files.resolve([relative]);
  if (resolved === undefined)
    throw new SkillToolError(`${tool}: ${relative} does not exist (workspace_list shows what the workspace holds)`);
  if (!resolved.inside)
    throw new SkillToolError(
      `${tool}: ${relative} is a link that leads out of the workspace or to nothing; a staged skill's own files are read with skill_read`,
    );
  const { entry } = resolved;
  if (entry.kind === 'directory') throw new SkillToolError(`${tool}: ${relative} is a folder; use workspace_list`);
  if (entry.kind !== 'file') throw new SkillToolError(`${tool}: ${relative} is not a regular file`);
  const { data, sizeBytes } = await workspace.files.read(resolved.path, maxBytes);
  const head = data.subarray(0, sniffBytes);
  if (!looksLikeText(head)) {
    const type = detectMimeType(resolved.path, head);
    throw new SkillToolError(
      `${tool}: ${relative} is binary (${type}, ${sizeBytes} bytes) and is not shown as text; return it as an output file of workspace_exec or skill_run`,
    );
  }
  return {
    path: resolved.path,
    text: data.toString('utf8'),
    sizeBytes,
    mode: entry.mode,
    cut: sizeBytes > data.length,
  };
}
