import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RuntimeProcess } from './runtime-process.js';

/**
 * The background processes a runtime started, by workspace, so that `stopProcesses(workspaceRoot)`
 * reaches every one of them (and only those) when the workspace ends.
 */
export class HostProcessRegistry {
  private readonly byWorkspace = new Map<string, Set<RuntimeProcess>>();

  add(workspaceRoot: string, handle: RuntimeProcess): RuntimeProcess {
    const key = workspaceKey(workspaceRoot);
    let set = this.byWorkspace.get(key);
    if (set === undefined) {
      set = new Set();
      this.byWorkspace.set(key, set);
    }
    set.add(handle);
    void handle.exited.then(() => {
      set.delete(handle);
      if (set.size === 0 && this.byWorkspace.get(key) === set) this.byWorkspace.delete(key);
    });
    return handle;
  }

  /** Kills every process of the workspace and resolves once all have ended. */
  async stop(workspaceRoot: string): Promise<void> {
    const set = this.byWorkspace.get(workspaceKey(workspaceRoot));
    if (set === undefined) return;
    await Promise.all([...set].map((handle) => handle.kill()));
  }
}

/** The same workspace named through a link or by its real path is one workspace. */
function workspaceKey(workspaceRoot: string): string {
  try {
    return realpathSync(workspaceRoot);
  } catch {
    return resolve(workspaceRoot);
  }
}
