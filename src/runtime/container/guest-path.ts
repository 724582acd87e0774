import { guestWorkspace } from './workspace-containers.js';

/** Where the container's commands see a path of the workspace: below /skillbox/workspace. */
export function guestPath(hostPath: string, workspaceRoot: string): string {
  if (hostPath === workspaceRoot) return guestWorkspace;
  if (!hostPath.startsWith(`${workspaceRoot}/`)) return hostPath;
  return `${guestWorkspace}${hostPath.slice(workspaceRoot.length)}`;
}
