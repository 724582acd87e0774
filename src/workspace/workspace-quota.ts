import type { WorkspaceFiles, WorkspaceSizeLimits, WorkspaceUsage } from '../runtime/workspace-files.js';

/** How much one workspace may hold: checked while a command runs and after it (bytes of disk in use; files, folders and links). */
export type WorkspaceQuota = WorkspaceSizeLimits;

export type { WorkspaceUsage };

/**
 * 1 GiB and 50,000 entries: room for a skill with its dependencies, data and results, far below
 * what stalled a host in issue 8 (3 GiB and 100,000 files kept by one run).
 */
export const defaultWorkspaceQuota: WorkspaceQuota = { maxBytes: 1024 * 1024 * 1024, maxFiles: 50_000 };

export type QuotaLimit = 'disk' | 'files';

/**
 * Counts what the workspace holds without following links; each inode once (hard links are not
 * counted twice). Stops as soon as a limit is passed: the walk of a workspace that holds far too
 * much costs no more than one that holds just too much. The walk is the runtime's
 * (`WorkspaceFiles.measure`), made where the workspace is.
 */
export function measureWorkspace(files: WorkspaceFiles, quota: WorkspaceQuota): Promise<WorkspaceUsage> {
  return files.measure(quota);
}

/**
 * What a command may grow a workspace to: the quota, or for a workspace already past it, what it
 * held at the start and a little more (a run folder, a temporary file), so a command cleaning up
 * a workspace that is too full may run while one that makes it fuller is stopped. `baseline`
 * must be a full measurement (`measureWorkspace` with no limits).
 */
export function watchLimits(quota: WorkspaceQuota, baseline: WorkspaceUsage): WorkspaceQuota {
  return {
    maxBytes: Math.max(quota.maxBytes, baseline.bytes + overQuotaSlack.maxBytes),
    maxFiles: Math.max(quota.maxFiles, baseline.files + overQuotaSlack.maxFiles),
  };
}

const overQuotaSlack: WorkspaceQuota = { maxBytes: 1024 * 1024, maxFiles: 64 };

export const unlimited: WorkspaceQuota = { maxBytes: Infinity, maxFiles: Infinity };

/**
 * Measures the workspace again and again while a command runs and calls `onExceeded` once when it
 * holds more than `limits` (see `watchLimits`). The pause between walks is at least four times
 * the last walk's duration, so watching costs at most a fifth of the time of one core.
 */
export function watchWorkspaceQuota(
  files: WorkspaceFiles,
  limits: WorkspaceQuota,
  onExceeded: (limit: QuotaLimit, usage: WorkspaceUsage) => void,
): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const schedule = (delay: number): void => {
    timer = setTimeout(() => void check(), delay);
    timer.unref();
  };
  const check = async (): Promise<void> => {
    if (stopped) return;
    const started = performance.now();
    let usage: WorkspaceUsage;
    try {
      usage = await measureWorkspace(files, limits);
    } catch {
      // A walk that failed outright (not a folder it could not read, which counts as over the
      // limit): measured again at the next turn, never left as an unhandled rejection of a timer.
      if (!stopped) schedule(watchIntervalMs);
      return;
    }
    if (stopped) return;
    if (usage.exceeded !== undefined) {
      stopped = true;
      onExceeded(usage.exceeded, usage);
      return;
    }
    schedule(Math.max(watchIntervalMs, 4 * (performance.now() - started)));
  };
  schedule(watchIntervalMs);
  return () => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
  };
}

/** Shortest pause between two measurements of a running command's workspace. */
export const watchIntervalMs = 250;

/** The message for a result: what was exceeded, by how much, and what to do. */
export function quotaWarning(
  limit: QuotaLimit,
  usage: WorkspaceUsage,
  quota: WorkspaceQuota,
  stopped: boolean,
): string {
  const what =
    usage.unreadable !== undefined
      ? `a folder the quota walk cannot read, ${usage.unreadable}, so its size is unknown`
      : limit === 'disk'
        ? `more than ${quota.maxBytes} bytes of disk (at least ${usage.bytes})`
        : `more than ${quota.maxFiles} files (at least ${usage.files})`;
  return `${stopped ? 'command stopped: ' : ''}the workspace holds ${what}; delete what is no longer needed (work/, out/, runs/) before running more`;
}

/** A complete count judged against other limits: the first one passed, disk before files as a walk checks them. */
export function judgedAgainst(usage: WorkspaceUsage, limits: WorkspaceQuota): WorkspaceUsage {
  const exceeded = usage.bytes > limits.maxBytes ? 'disk' : usage.files > limits.maxFiles ? 'files' : undefined;
  return { bytes: usage.bytes, files: usage.files, ...(exceeded === undefined ? {} : { exceeded }) };
}
