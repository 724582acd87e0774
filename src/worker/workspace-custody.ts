export interface WorkspaceCustody {
  /** Before the first operation on workspace `name` this worker does not hold: take the lease and restore the last snapshot into `folder` (an empty folder made by the worker). Throws WorkspaceHeldError (code WORKSPACE_HELD) while another live worker holds it. */
  acquire(name: string, folder: string): Promise<void>;
  /** After a run or a file write that may have changed the workspace: snapshot it if its content changed, and move the current pointer (fenced by the lease's epoch). */
  changed(name: string, folder: string): Promise<void>;
  /** The workspace was removed: drop the lease and the current pointer. */
  release(name: string): Promise<void>;
  close(): Promise<void>;
}
