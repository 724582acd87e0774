import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ownPackage } from '../config/own-package.js';
import { hostProbeCache, probeIdentity } from './host-probe-cache.js';

/** Where the compiled prelude appears inside every sandbox (bound read-only, see bubblewrap-arguments.ts). */
export const SANDBOX_PRELUDE_PROGRAM_PATH = '/run/skillbox-prelude';

/** What `sandbox-prelude --protocol` prints: the argument layout preludeArguments writes for it. */
export const PRELUDE_PROTOCOL_LINE = 'skillbox-sandbox-prelude 2\n';

/**
 * Set to `shell` to keep the shell preludes even where the compiled one exists (to compare the two,
 * or to test the fall-back); read when a SandboxRuntime is created.
 */
export const PRELUDE_CHOICE_VARIABLE = 'SKILLBOX_SANDBOX_PRELUDE';

const checked = new Map<string, string | undefined>();

/**
 * The compiled prelude (native/sandbox-prelude.c, built by native/build-prelude.mjs) for this
 * platform and architecture, or undefined when it is absent, not ours to trust, or does not run
 * here; the runtime then uses the shell preludes, which do the same job more slowly. Checked once
 * per process and path.
 *
 * Trusted only when no one but root or this process's user can change it: it runs as the first
 * program of every sandbox, so a file another host user could replace would run their code in
 * every workspace. Inside the sandbox it is a read-only bind that no workspace can reach.
 */
export function findPreludeProgram(
  path = join(ownPackage().folder, 'native', 'build', `sandbox-prelude-${process.platform}-${process.arch}`),
): string | undefined {
  if (process.env[PRELUDE_CHOICE_VARIABLE] === 'shell') return undefined;
  if (checked.has(path)) return checked.get(path);
  const program = check(path);
  checked.set(path, program);
  return program;
}

function check(path: string): string | undefined {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch {
    return undefined;
  }
  const ownerTrusted = stats.uid === 0 || stats.uid === process.getuid?.();
  // 0o022: writable by group or others.
  if (!stats.isFile() || !ownerTrusted || (stats.mode & 0o022) !== 0) return undefined;
  // The owner and mode are judged every time, above; only whether it runs is remembered (host-probe-cache.ts).
  const cache = hostProbeCache();
  const identity = probeIdentity([path]);
  if (cache.get('prelude', identity) === PRELUDE_PROTOCOL_LINE) return path;
  const result = spawnSync(path, ['--protocol'], { env: {}, encoding: 'utf8', timeout: 5_000 });
  if (result.status !== 0 || result.stdout !== PRELUDE_PROTOCOL_LINE) return undefined;
  cache.set('prelude', identity, PRELUDE_PROTOCOL_LINE);
  return path;
}
