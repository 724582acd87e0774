import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * The live sandboxes of each workspace, by bubblewrap's host pid: the processes whose open files
 * count towards the workspace's quota (held-deleted-files.ts). A run is added when it is spawned
 * and removed when it ended; a background process likewise.
 */
export class WorkspaceSandboxes {
  private readonly byWorkspace = new Map<string, Set<number>>();

  /** Records `pid` as a sandbox of the workspace; the returned function forgets it. */
  add(workspaceRoot: string, pid: number): () => void {
    const key = resolve(workspaceRoot);
    let pids = this.byWorkspace.get(key);
    if (pids === undefined) {
      pids = new Set();
      this.byWorkspace.set(key, pids);
    }
    pids.add(pid);
    return () => {
      pids.delete(pid);
      if (pids.size === 0 && this.byWorkspace.get(key) === pids) this.byWorkspace.delete(key);
    };
  }

  pids(workspaceRoot: string): number[] {
    return [...(this.byWorkspace.get(resolve(workspaceRoot)) ?? [])];
  }
}

/**
 * Spawn hook that records a sandbox in `sandboxes` as soon as bubblewrap has a pid, then runs the
 * launch's own hook (the cgroup hand-shake, when there is one); `forget` removes it once it ended.
 */
export function trackSandbox(
  sandboxes: WorkspaceSandboxes,
  workspaceRoot: string,
  onSpawn: ((child: ChildProcess) => Promise<void>) | undefined,
): { onSpawn: (child: ChildProcess) => Promise<void>; forget: () => void } {
  let forget: (() => void) | undefined;
  return {
    onSpawn: async (child) => {
      if (child.pid !== undefined) forget = sandboxes.add(workspaceRoot, child.pid);
      await onSpawn?.(child);
    },
    forget: () => forget?.(),
  };
}
