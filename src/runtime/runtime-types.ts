import type { RuntimeProcess, RuntimeProcessCommand } from './runtime-process.js';
import type { WorkspaceFiles } from './workspace-files.js';

/**
 * One command to run in a workspace. Runtimes are small: they start a process confined to
 * `workspaceRoot`, feed stdin, enforce the timeout and output caps, and report what happened.
 * Everything about skills (staging, output files, artifacts) lives above them.
 */
export interface RuntimeCommand {
  /** Shell command string, run as `bash -c <command>`. Exclusive with `argv`. */
  command?: string;
  /** Program and arguments, run without a shell (used when command allow/deny lists are set). */
  argv?: string[];
  /**
   * Absolute host path of the workspace: the only writable place. A runtime that keeps workspaces
   * elsewhere takes it as the workspace's name (the same one its `files()` was given).
   */
  workspaceRoot: string;
  /** Absolute host path inside `workspaceRoot` to run in (for a remote runtime: the same path below the name). */
  cwd: string;
  /** The complete environment of the process: nothing from the host is added by the runtime. */
  env: Record<string, string>;
  stdin?: string | Uint8Array;
  /** Kill the whole process tree after this many milliseconds. */
  timeoutMs: number;
  /** Bytes kept of stdout and of stderr each; the rest is counted and dropped. */
  maxOutputBytes: number;
  /** Allow network access (sandbox runtime: shares the host network namespace). Default false. */
  network?: boolean;
  /**
   * Host paths the process may read (not write) besides the workspace, seen at the same path
   * (sandbox: read-only bind mounts; local: everything is visible anyway). For example the source
   * folder of a skill staged as links instead of copies.
   */
  readOnlyPaths?: string[];
  /**
   * The image to run in, for a runtime that runs commands in images (the container runtime, which
   * refuses one its options do not allow, field `image`): the image a skill names
   * (`metadata: { skillbox-image: IMAGE }`). Runtimes without images ignore it.
   */
  image?: string;
  abortSignal?: AbortSignal;
  /**
   * A caller-chosen id, unique across the deployment (the durable turn's invocation and tool-call
   * id). A runtime that keeps a run ledger (a sandbox worker, docs/workers.md) answers a repeated id
   * with the recorded result instead of running again; the host runtimes ignore it.
   */
  runId?: string;
  /**
   * The command may be run again after it was lost mid-way (its worker died): a ledger then runs it
   * again instead of reporting it lost. Only for scripts whose skill declares it
   * (`metadata: { skillbox-retry: safe }`, docs/skill-format.md).
   */
  retrySafe?: boolean;
}

/** What a runtime reports about one command: output, exit code or signal, timeout, truncation. */
export interface RuntimeResult {
  stdout: string;
  stderr: string;
  /**
   * Exit code; 128 + signal number when killed by a signal (a timeout kills with SIGKILL: 137);
   * 127 when the program was not found, 126 when it could not be executed (as a shell reports
   * them); -1 when it could not start for another reason.
   */
  exitCode: number;
  /** Name of the signal that ended the process (`SIGKILL`, ...), when one did. */
  signal?: string;
  timedOut: boolean;
  durationMs: number;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** Bytes of stdout / stderr dropped by the cap (0 when nothing was dropped). */
  stdoutDroppedBytes?: number;
  stderrDroppedBytes?: number;
  /**
   * Resource caps of the runtime the run reached (sandbox: `processes` when a fork was refused,
   * `memory` when an allocation failed or a process was killed for memory, `cpu` when it was
   * throttled); absent when none was. Each also has a warning saying what happened.
   */
  limitsHit?: ('processes' | 'memory' | 'cpu')[];
  /**
   * The run was lost: its worker died or its connection broke after it may have started, so it may
   * have had effects (exitCode -1, with the warning "the worker was lost during the run; it may
   * have had effects"). Absent for every run whose end was seen.
   */
  lost?: boolean;
  warnings: string[];
}

/**
 * Something that runs commands in a workspace and gives the host access to the workspace's files:
 * `local`, `sandbox` (bubblewrap), or one whose commands run elsewhere (docs/workspaces.md,
 * "Runtimes and workspace files"). The host never opens a workspace folder itself: staging, inputs,
 * metadata and output files go through `files()`. docs/runtimes.md, "Writing another runtime", is
 * the guide; `describeRuntimeConformance` (`skillbox/testing`) is the test.
 *
 * What a runtime may rely on, and what it owes:
 *
 * - **The workspace folder** is made by the caller (the workspace manager: an empty host folder,
 *   mode 0700, whose path is the workspace's name), before any call names it. A runtime whose
 *   workspaces live elsewhere makes its own on the first call that names it; the layout inside
 *   (`skills/`, `work/`, ...) is made by the caller through `files().ensureFolders`.
 * - **Command fields** (`command` xor `argv`, environment names, timeout bounds, output cap, cwd
 *   inside `workspaceRoot` as written) are checked by the caller with `validateRuntimeCommand`
 *   before `run` and `start`; the workspace layer always does. A runtime checks only what it alone
 *   can see when the command starts: that `cwd` exists and still leads inside the workspace (a
 *   command may have put a link in its place), refused with `RuntimeCommandError` (code
 *   `RUNTIME_COMMAND_INVALID`, field `cwd`), and any field it cannot honour, refused the same way
 *   by that field (a runtime that cannot show host paths refuses `readOnlyPaths`).
 * - **Errors**: a refused command is thrown before anything starts; everything after the start is
 *   in the result, never thrown. `files()` refuses a path that would leave the workspace with
 *   `WorkspacePathError` (code `WORKSPACE_PATH_REFUSED`). Callers match the code, not the class.
 * - **Optional methods**: `start` and `stopProcesses` come together or not at all. Without them
 *   `workspace_exec` offers no `background` field, `Workspace.start` refuses with
 *   `BackgroundProcessError`, and the conformance suite skips its background-process cases.
 */
export interface WorkspaceRuntime {
  /** `local`, `sandbox`, ... */
  readonly kind: string;
  /** True when commands cannot touch the host outside the workspace. */
  readonly isolated: boolean;
  /**
   * How paths look to the process: the sandbox may mount the workspace elsewhere. Environment
   * values such as WORKSPACE_DIR are built with this.
   */
  guestPath(hostPath: string, workspaceRoot: string): string;
  run(command: RuntimeCommand): Promise<RuntimeResult>;
  /**
   * File access to the workspace named `workspaceRoot` (see `RuntimeCommand.workspaceRoot`). Cheap
   * to call; the host runtimes work on the host folder itself (`HostWorkspaceFiles`). A file given
   * as `{ hostFile }` (`FileContent`) is a path on the HOST, read by the host or by a runtime that
   * sees host paths, never opened by a command; a runtime whose workspaces live elsewhere reads it
   * on the host (inside `within` when given) and sends the bytes.
   */
  files(workspaceRoot: string): WorkspaceFiles;
  /**
   * Starts a command in the background, confined exactly as `run` would confine it, and returns
   * its handle (runtime-process.ts). Optional: a runtime without it cannot run background
   * processes, and `workspace_exec` with `background: true` says so.
   */
  start?(command: RuntimeProcessCommand): Promise<RuntimeProcess>;
  /**
   * Kills every background process started in the workspace `workspaceRoot`, with everything they
   * started, and resolves once all have ended. Called before a workspace is removed. Present
   * whenever `start` is.
   */
  stopProcesses?(workspaceRoot: string): Promise<void>;
}
