import { SkillToolError } from '../../../tools/errors.js';
import { WorkspacePathError } from '../../errors.js';
import type { Workspace } from '../../workspace.js';
import { toWorkspaceRelative, workspaceFolders } from '../../workspace-paths.js';

/**
 * The workspace-relative path a file tool works on. Paths are taken as the other tools take them
 * (relative to the workspace root, `$WORK_DIR/...`, `workspace://...`, an absolute path inside the
 * workspace), plus the alias the Go seed's file tools offer: `inputs/<path>` means
 * `work/inputs/<path>` while the workspace root holds no `inputs` of its own, since models read
 * "inputs" in skills and prompts and the staged inputs live under work/.
 */
export async function fileToolPath(tool: string, field: string, input: string, workspace: Workspace): Promise<string> {
  let relative: string;
  try {
    relative = toWorkspaceRelative(input, '', workspace.paths);
  } catch (error) {
    if (error instanceof WorkspacePathError) throw new SkillToolError(`${tool}: ${field} ${error.message}`);
    throw error;
  }
  if (
    (relative === 'inputs' || relative.startsWith('inputs/')) &&
    (await workspace.files.inspect('inputs')) === undefined
  )
    relative = `${workspaceFolders.inputs}${relative.slice('inputs'.length)}`;
  return relative;
}

/**
 * A name a file tool may create: no control characters (a newline or an escape in a file name
 * misleads every listing a person reads later), and not the workspace root itself.
 */
export function assertWritableName(tool: string, relative: string, input: string): void {
  if (relative === '') throw new SkillToolError(`${tool}: path "${input}" is the workspace root, not a file`);
  if (/[\u0000-\u001f\u007f]/.test(relative))
    throw new SkillToolError(
      `${tool}: path ${JSON.stringify(input)} holds a control character; name files with printable characters`,
    );
}
