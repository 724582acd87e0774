import type { SkillRepository } from '../repository/types.js';
import type { RuntimeResult, WorkspaceRuntime } from '../runtime/runtime-types.js';
import type { ArtifactStore } from './outputs/artifact-store.js';
import type { StageMode } from './skill-stager.js';

/** Settings a workspace shares with its manager. */
export interface WorkspaceSettings {
  runtime: WorkspaceRuntime;
  repository: SkillRepository;
  stageMode: StageMode;
  artifacts?: ArtifactStore;
  /** Host paths every command may read, already checked (canonical). */
  readOnlyPaths?: readonly string[];
}

/** One command to run in a workspace: the skill, the command, inputs, outputs and limits. */
export interface WorkspaceRunRequest {
  /** Shell command string, run under bash. Exclusive with `argv`. */
  command?: string;
  /** Program and arguments, run without a shell. */
  argv?: string[];
  /** The skill the command belongs to: sets SKILL_NAME, PATH and the default cwd. It must be staged. */
  skill?: string;
  /** As the model wrote it: relative to the skill's copy (or the root), `$WORK_DIR/...`, or absolute inside. */
  cwd?: string;
  env?: Record<string, string>;
  /** Host variables already picked by the caller's allow list. */
  hostEnv?: Record<string, string>;
  stdin?: string | Uint8Array;
  timeoutMs: number;
  maxOutputBytes: number;
  network?: boolean;
  /**
   * Command allow/deny lists are in force: PATH is fixed to the system folders (no skill `bin/`, no
   * host or caller PATH) and a PATH in `env` is refused, so the program judged is the one that runs.
   */
  restricted?: boolean;
  /** Host paths this command may read besides the workspace's own (added to the manager's); already checked. */
  readOnlyPaths?: readonly string[];
  /** `RuntimeCommand.image`: the image the skill names (`metadata: { skillbox-image: IMAGE }`). */
  image?: string;
  abortSignal?: AbortSignal;
  /** `RuntimeCommand.runId`: the id a run ledger knows this run by (durable turns set it). */
  runId?: string;
  /** `RuntimeCommand.retrySafe`: the skill declares its scripts safe to run again after a lost run. */
  retrySafe?: boolean;
}

/**
 * A command to start in the background: a run's fields without stdin (the process's input stays
 * open for writes), `timeoutMs` read as its lifetime and `maxOutputBytes` as the unread output kept
 * of stdout and of stderr each, plus the most background processes the workspace may run at once.
 */
export interface WorkspaceStartRequest
  extends Omit<WorkspaceRunRequest, 'stdin' | 'abortSignal' | 'runId' | 'retrySafe'> {
  maxConcurrent: number;
  /**
   * Skills the start was judged against besides those staged when it starts (the loaded ones,
   * which a later call stages): with those, what the process is approved to reach (`skills` of its record).
   */
  reachableSkills?: readonly string[];
}

/** What `Workspace.run` returns: the runtime's result, the folder of the run and the folder it ran in. */
export interface WorkspaceRunOutcome {
  result: RuntimeResult;
  /** Workspace-relative folder of this run: `runs/run_<timestamp>`. */
  runDir: string;
  /** Workspace-relative cwd the command ran in. */
  cwd: string;
}
