import { SkillToolError } from '../../../tools/errors.js';
import type { ToolContext } from '../../../tools/types.js';
import type { Workspace } from '../../workspace.js';
import type { ResolvedExecutionOptions } from '../execution-options.js';

/** Caps of the file tools: what one call may read, write, list and search. */
export const fileToolLimits = {
  /** Bytes `workspace_read` reads of a file; lines past it are not shown. */
  maxReadBytes: 2 * 1024 * 1024,
  /** Lines `workspace_read` shows when the call gives no limit, and at most. */
  defaultReadLines: 400,
  maxReadLines: 4000,
  /** Bytes `workspace_write` writes and `workspace_edit` edits at most. */
  maxWriteBytes: 2 * 1024 * 1024,
  /** Entries `workspace_list` returns, and the depth it goes to at most. */
  maxListEntries: 500,
  maxListDepth: 6,
  /** Entries `workspace_glob` and `workspace_grep` walk, and the matches they return. */
  maxWalkEntries: 20_000,
  maxGlobMatches: 500,
  maxGrepMatches: 500,
  /** Files `workspace_grep` reads, bytes of each, and bytes in all. */
  maxGrepFiles: 2_000,
  maxGrepFileBytes: 1024 * 1024,
  maxGrepTotalBytes: 32 * 1024 * 1024,
  /** Milliseconds a search may take before it is stopped (a pattern that backtracks without end). */
  grepTimeoutMs: 5_000,
} as const;

/** The session's workspace, as the execution tools pick it. */
export function sessionWorkspace(options: ResolvedExecutionOptions, context: ToolContext): Promise<Workspace> {
  return options.workspaces.workspace({
    ...(context.appName !== undefined ? { appName: context.appName } : {}),
    ...(context.userId !== undefined ? { userId: context.userId } : {}),
    sessionId: context.sessionId,
  });
}

/** The quota check of a write: refused before anything is placed when it would pass a limit. */
export async function assertWriteFits(
  tool: string,
  options: ResolvedExecutionOptions,
  workspace: Workspace,
  relative: string,
  change: { bytesBefore: number; bytesAfter: number; creates: boolean },
): Promise<void> {
  const quota = options.workspaceQuota;
  if (!Number.isFinite(quota.maxBytes) && !Number.isFinite(quota.maxFiles)) return;
  const usage = await workspace.usage(quota);
  const bytes = usage.bytes - change.bytesBefore + change.bytesAfter;
  const files = usage.files + (change.creates ? 1 : 0);
  if (usage.exceeded !== undefined || bytes > quota.maxBytes || files > quota.maxFiles)
    throw new SkillToolError(
      `${tool}: writing ${relative} would pass the workspace quota (${quota.maxBytes} bytes, ${quota.maxFiles} files; it holds ${usage.bytes} bytes in ${usage.files} files): remove files first`,
    );
}
