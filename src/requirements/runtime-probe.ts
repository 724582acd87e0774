import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RuntimeCommandError } from '../runtime/errors.js';
import { SYSTEM_PATH } from '../runtime/find-executable.js';
import type { RuntimeCommand, WorkspaceRuntime } from '../runtime/runtime-types.js';
import { validateRuntimeCommand } from '../runtime/validate-command.js';
import { programName } from './skill-requirements.js';

/** What one runtime offers commands: its OS and which programs its PATH finds. */
export interface RuntimeProbe {
  /** `linux`, `darwin`, ... (Node's `process.platform` names), as `uname -s` reports it inside the runtime. */
  os(): Promise<string>;
  /** The names among `programs` that `command -v` finds inside the runtime. */
  findPrograms(programs: readonly string[]): Promise<Set<string>>;
  /**
   * Why commands cannot run in the probe's image at all (the runtime does not allow it, the daemon
   * lacks it), or undefined when they can; always undefined without an image. Asked once.
   */
  imageRefusal(): Promise<string | undefined>;
}

interface ProbeCache {
  os: Promise<string> | undefined;
  refusal: Promise<string | undefined> | undefined;
  programs: Map<string, Promise<boolean>>;
}

// Per runtime object, PATH and image: a sandbox and the host see different programs, and so do two PATHs and two images.
const caches = new WeakMap<WorkspaceRuntime, Map<string, ProbeCache>>();

const unameToPlatform: Record<string, string> = {
  linux: 'linux',
  darwin: 'darwin',
  freebsd: 'freebsd',
  openbsd: 'openbsd',
  sunos: 'sunos',
  aix: 'aix',
};

/** Programs are probed in batches this large, so one probe command stays short. */
const batchSize = 64;

async function runProbe(
  runtime: WorkspaceRuntime,
  path: string,
  image: string | undefined,
  command: string,
): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'skillbox-probe-'));
  try {
    const probe: RuntimeCommand = {
      command,
      workspaceRoot: root,
      cwd: root,
      env: { LANG: 'C.UTF-8', HOME: runtime.guestPath(root, root), PATH: path },
      timeoutMs: 20_000,
      maxOutputBytes: 64 * 1024,
      ...(image === undefined ? {} : { image }),
    };
    // Runtimes leave field checks to their callers (validate-command.ts); the PATH comes from options.
    validateRuntimeCommand(probe);
    const result = await runtime.run(probe);
    if (result.exitCode !== 0 || result.timedOut) {
      throw new Error(
        `the requirement probe failed in the ${runtime.kind} runtime (exit ${result.exitCode}${result.timedOut ? ', timed out' : ''}): ${result.stderr.trim().slice(0, 500)}`,
      );
    }
    return result.stdout;
  } finally {
    // Through the runtime first: one whose workspaces live elsewhere (a container, a worker) keeps one for the probe.
    await runtime
      .files(root)
      .remove('')
      .catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * The probe of one runtime with one PATH: small commands run through the runtime itself (inside
 * the sandbox for the sandbox runtime), so a program the host has but the sandbox does not show
 * counts as missing. Answers are kept for the life of the runtime object: each program is probed
 * once, and the OS once.
 */
export function runtimeProbe(runtime: WorkspaceRuntime, path: string = SYSTEM_PATH, image?: string): RuntimeProbe {
  let byPath = caches.get(runtime);
  if (byPath === undefined) {
    byPath = new Map();
    caches.set(runtime, byPath);
  }
  const key = `${path}\0${image ?? ''}`;
  let cache = byPath.get(key);
  if (cache === undefined) {
    cache = { os: undefined, refusal: undefined, programs: new Map() };
    byPath.set(key, cache);
  }
  const known = cache;
  return {
    os() {
      known.os ??= runProbe(runtime, path, image, 'uname -s').then((output) => {
        const name = output.trim().toLowerCase();
        return unameToPlatform[name] ?? name;
      });
      // A failed probe is not kept: the next check tries again.
      known.os.catch(() => {
        known.os = undefined;
      });
      return known.os;
    },
    imageRefusal() {
      if (image === undefined) return Promise.resolve(undefined);
      // A refused field is the answer; any other failure (the daemon lacks the image) is one too.
      known.refusal ??= runProbe(runtime, path, image, 'true').then(
        () => undefined,
        (error: unknown) =>
          error instanceof RuntimeCommandError && error.field === 'image'
            ? `the ${runtime.kind} runtime does not allow it`
            : `commands cannot run in it: ${(error as Error).message.slice(0, 300)}`,
      );
      return known.refusal;
    },
    async findPrograms(programs) {
      const unsafe = programs.find((name) => !programName.test(name));
      if (unsafe !== undefined) throw new Error(`not a program name: ${JSON.stringify(unsafe)}`);
      const unknown = [...new Set(programs)].filter((name) => !known.programs.has(name));
      for (let start = 0; start < unknown.length; start += batchSize) {
        const batch = unknown.slice(start, start + batchSize);
        // Names are checked by readSkillRequirements ([A-Za-z0-9._+-]), so they are safe unquoted in a shell word.
        const found = runProbe(
          runtime,
          path,
          image,
          `for program in ${batch.join(' ')}; do if command -v -- "$program" >/dev/null 2>&1; then echo "$program"; fi; done`,
        ).then((output) => new Set(output.split('\n').filter((line) => line !== '')));
        for (const name of batch) {
          const answer = found.then((set) => set.has(name));
          known.programs.set(name, answer);
          answer.catch(() => known.programs.delete(name));
        }
      }
      const present = new Set<string>();
      for (const name of programs) if (await known.programs.get(name)!) present.add(name);
      return present;
    },
  };
}
