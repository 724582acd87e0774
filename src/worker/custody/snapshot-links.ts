/**
 * Why a snapshot's symbolic link cannot be kept, or undefined when it can. Only the target's own
 * form is judged: a link may point anywhere, as a command in the workspace may make it point
 * anywhere (`python -> /usr/bin/python3` in a virtualenv, `latest -> ../runs/run_1`). A link is a
 * name, not an opening: the restore writes nothing through one (no entry may lie below a link, and
 * links are made after every file), and what reads the workspace afterwards follows links only
 * while they stay inside (the host's `WorkspaceFiles`) or sees the sandbox's own view.
 */
export function linkTargetProblem(target: string): string | undefined {
  if (target === '') return 'the link target is empty';
  if (target.includes('\0')) return 'the link target holds a NUL character';
  if (Buffer.byteLength(target) > maxLinkTargetBytes)
    return `the link target is longer than ${maxLinkTargetBytes} bytes`;
  return undefined;
}

/** Longest link target kept: PATH_MAX, as the kernel's own limit for a symlink's content. */
const maxLinkTargetBytes = 4095;
