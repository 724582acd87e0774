import { readdirSync, readFileSync } from 'node:fs';

/**
 * Kills a process started detached (so it leads its own process group) together with everything
 * it started. The group kill catches background jobs; the /proc walk also catches descendants that
 * left the group with setsid but are still children of the tree. A process that double-forked and
 * was re-parented to init before the kill is out of reach; only the sandbox's pid namespace catches
 * those (see docs/runtimes.md).
 */
export function killProcessTree(rootPid: number): void {
  const victims = process.platform === 'linux' ? descendantsOf(rootPid) : [];
  signal(-rootPid);
  for (const pid of victims) signal(pid);
}

/**
 * Kills what is left of the process group of a root that has already exited and been reaped. The
 * /proc walk of killProcessTree would find nothing then: the root's children were re-parented to
 * init the moment it died, so no parent chain reaches its pid any more (and walking from a reaped
 * pid could only ever match an unrelated process that reused it).
 */
export function killProcessGroup(rootPid: number): void {
  signal(-rootPid);
}

function signal(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone, or never ours: nothing left to kill.
  }
}

/** Every live process whose parent chain reaches `rootPid`, read from /proc/<pid>/stat. */
export function descendantsOf(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we were looking
    }
    // The command name is in parentheses and may itself contain ") "; fields resume after the last ")".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const parent = Number(fields[1]);
    const siblings = children.get(parent);
    if (siblings) siblings.push(pid);
    else children.set(parent, [pid]);
  }
  const found: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const next = children.get(queue.shift() as number) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}
