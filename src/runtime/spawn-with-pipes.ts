import { type ChildProcess, spawn } from 'node:child_process';
import type { Writable } from 'node:stream';

/** A program to start in its own process group, with data for descriptors 3… and spare pipes after them. */
export interface PipedSpawn {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Written to descriptors 3, 4, … and closed (bubblewrap's options and seccomp filter). */
  inputPipes?: readonly Uint8Array[];
  /** Further pipes after the input pipes, left to the caller (the cgroup hand-shake). */
  extraPipes?: number;
  /** Open host descriptors handed to the process after the input pipes (the run's cgroup.procs files). */
  sharedDescriptors?: readonly number[];
}

/**
 * Starts a run or a background process the same way: detached (its own process group, so the
 * whole tree can be killed), stdout and stderr piped, and each input pipe written and closed at
 * once. A wrapper that dies before reading its input reports itself through its exit status, so a
 * write error on those pipes is not the caller's.
 */
export function spawnWithPipes(spec: PipedSpawn, stdin: 'pipe' | 'ignore'): ChildProcess {
  const child = spawn(spec.file, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    stdio: [
      stdin,
      'pipe',
      'pipe',
      ...Array<'pipe'>((spec.inputPipes?.length ?? 0) + (spec.extraPipes ?? 0)).fill('pipe'),
      ...(spec.sharedDescriptors ?? []),
    ],
  });
  for (const [index, data] of (spec.inputPipes ?? []).entries()) {
    const pipe = child.stdio[3 + index] as Writable | null;
    pipe?.on('error', () => {});
    pipe?.end(data);
  }
  return child;
}
