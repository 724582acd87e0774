import { spawn } from 'node:child_process';
import { bubblewrapArguments } from './bubblewrap-arguments.js';
import { hostProbeCache, probeIdentity } from './host-probe-cache.js';
import { RunCgroup } from './run-cgroup.js';
import { PRELUDE_PROTOCOL_LINE, SANDBOX_PRELUDE_PROGRAM_PATH } from './sandbox-prelude-program.js';

const answers = new Map<string, Promise<boolean>>();

/**
 * Whether the compiled prelude can join a run's cgroup from inside a sandbox on this host, asked
 * once per process, bubblewrap and prelude by one real sandbox that joins a fresh cgroup and then
 * runs the prelude's `--protocol`.
 *
 * Why ask: the kernel judges a write to a membership file (`cgroup.procs`, or v1's `tasks` that
 * the prelude joins through) by the opener's credentials only since Linux 5.16; before that, on
 * cgroup v2, it judged the writer, whose own cgroup namespace (bubblewrap makes one) does not
 * reach the run's cgroup, so every join would fail. A prelude that cannot join
 * refuses to run the command (exit 126): without this question every capped run would fail on such
 * a host. Where the answer is no, runs keep bubblewrap's --info-fd/--block-fd hand-shake, which
 * the host performs with its own credentials.
 */
export function preludeCanJoinCgroups(bubblewrapPath: string, preludeHostPath: string): Promise<boolean> {
  const key = `${bubblewrapPath}\0${preludeHostPath}`;
  let answer = answers.get(key);
  if (answer === undefined) {
    answer = askOnceRemembered(bubblewrapPath, preludeHostPath);
    answers.set(key, answer);
  }
  return answer;
}

/** Yes when a process on the same host, programs and namespaces found it so before, else asked now (host-probe-cache.ts). */
async function askOnceRemembered(bubblewrapPath: string, preludeHostPath: string): Promise<boolean> {
  const cache = hostProbeCache();
  const identity = probeIdentity([bubblewrapPath, preludeHostPath]);
  if (cache.get('prelude-cgroup-join', identity) === true) return true;
  const answer = await askOnce(bubblewrapPath, preludeHostPath);
  // Only a join that worked is remembered: a no may have come from a passing cause (no cgroup free,
  // a probe that timed out on a loaded host), and it would keep every later process on the slower way.
  if (answer) cache.set('prelude-cgroup-join', identity, true);
  return answer;
}

async function askOnce(bubblewrapPath: string, preludeHostPath: string): Promise<boolean> {
  const cgroup = RunCgroup.acquire({ maxProcesses: 16, maxMemoryBytes: null, maxCpus: null });
  if (cgroup === undefined) return false;
  try {
    let descriptors: readonly number[];
    try {
      descriptors = cgroup.membershipDescriptors();
    } catch {
      // The membership files cannot be opened for writing: runs keep the hand-shake.
      return false;
    }
    const firstDescriptor = 3;
    const args = [
      ...bubblewrapArguments({ network: false, readOnlyPaths: [], preludeProgram: preludeHostPath }),
      '--as-pid-1',
      '--',
      SANDBOX_PRELUDE_PROGRAM_PATH,
      descriptors.map((_, index) => firstDescriptor + index).join(','),
      '-',
      '-',
      '-',
      'unset',
      '',
      SANDBOX_PRELUDE_PROGRAM_PATH,
      '--protocol',
    ];
    return await new Promise<boolean>((resolve) => {
      const child = spawn(bubblewrapPath, args, {
        env: { PATH: '/usr/bin:/bin' },
        stdio: ['ignore', 'pipe', 'ignore', ...descriptors],
        timeout: 10_000,
      });
      let stdout = '';
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.on('error', () => resolve(false));
      child.on('close', (code) => resolve(code === 0 && stdout === PRELUDE_PROTOCOL_LINE));
    });
  } finally {
    await cgroup.release();
  }
}
