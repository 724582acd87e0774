import path from 'node:path';
import type { Skill, SkillContext, SkillRepository } from '../repository/types.js';
import type { RuntimeResult } from '../runtime/runtime-types.js';
import type { WorkspaceFiles } from '../runtime/workspace-files.js';
import { inSpan } from '../telemetry/in-span.js';
import { BackgroundProcessError } from './errors.js';
import { hostRecordVersion, readHostRecord, storeMetadata } from './host-metadata-record.js';
import { type InputSpec, recordedSource, type StagedInput, stageInput } from './input-stager.js';
import { MetadataWriteQueue } from './metadata-write-queue.js';
import {
  type CollectedOutputs,
  defaultOutputLimits,
  findOutputs,
  type OutputLimits,
  type OutputMatch,
  readOutputs,
} from './outputs/output-collector.js';
import { homeFolder, type PreparedCommand, prepareWorkspaceCommand } from './prepare-workspace-command.js';
import { recordOfCopiesFound } from './record-of-copies-found.js';
import { resolveOutputPatterns } from './resolve-output-patterns.js';
import { assertStageableName, type StagedSkill, stageSkill } from './skill-stager.js';
import { type WorkspaceKey, workspaceKeyId } from './workspace-key.js';
import { freshMetadata, type WorkspaceMetadata, writeMetadata } from './workspace-metadata.js';
import { toWorkspaceRelative, type WorkspacePathContext, workspaceFolders } from './workspace-paths.js';
import { type BackgroundProcessRecord, WorkspaceProcesses } from './workspace-processes.js';
import { judgedAgainst, type WorkspaceQuota, type WorkspaceUsage } from './workspace-quota.js';
import type {
  WorkspaceRunOutcome,
  WorkspaceRunRequest,
  WorkspaceSettings,
  WorkspaceStartRequest,
} from './workspace-requests.js';
import { WorkspaceTurns } from './workspace-turns.js';

/**
 * One session's workspace on disk. Methods may be called concurrently, but the ones that touch the
 * workspace's files (staging, running, collecting) take turns: while the host stages or collects,
 * no command of this workspace runs, so none can swap a folder for a link under the host's feet (a
 * sandboxed command's processes all die with it; see docs/workspaces.md for the local runtime).
 * `exclusive()` holds the turn over several steps (stage, run, collect of one tool call).
 *
 * The metadata is the host's record (host-metadata-record.ts), outside the workspace: read once,
 * when the workspace is first used in this process, then kept in memory and written out whole,
 * changes that arrive while a write is under way sharing the next write (metadata-write-queue.ts).
 * Each write also leaves a copy in the workspace, metadata.json, which is never read back: any
 * command can rewrite it.
 */
export class Workspace {
  readonly sessionId: string;
  /** Whose workspace this is: app, user and session. */
  readonly key: WorkspaceKey;
  /** Scope of this workspace's artifacts (`artifact://` inputs, `save_as_artifacts`). */
  readonly artifactScope: string;
  /**
   * Real host path of the workspace folder: its name for the runtime. A runtime whose commands run
   * elsewhere keeps the contents there; this process reaches them only through `files`.
   */
  readonly root: string;
  readonly paths: WorkspacePathContext;
  /** The workspace's files, through the runtime: staging, inputs, metadata and outputs use nothing else. */
  readonly files: WorkspaceFiles;
  /** This workspace's background processes, by id (`start`). */
  readonly processes = new WorkspaceProcesses();
  private readonly settings: WorkspaceSettings;
  private readonly metadataQueue: MetadataWriteQueue;
  /** Why the last write of metadata.json, the workspace's copy, failed: told by flushMetadata, never by a change. */
  private copyWriteError: unknown;
  /** The version of the host record this workspace last wrote (hostRecordVersion), undefined before its first write. */
  private recordVersion: string | undefined;
  private readonly skillLocks = new Map<string, Promise<unknown>>();
  private activeRuns = 0;
  private readonly turns = new WorkspaceTurns();
  /** Bumped when a command starts and when it ends: the only times this process lets anything change the layout. */
  private runGeneration = 0;
  private layoutCheckedGeneration = -1;
  /** The run generation at which each skill's copy was last found (or made) a folder by staging. */
  private readonly copiesChecked = new Map<string, number>();
  /** Bumped when this process places files in the workspace (a skill copy rebuilt, inputs). */
  private placements = 0;
  /** The last complete count of the workspace, and when it was taken (see `usage`). */
  private lastUsage: { usage: WorkspaceUsage; runGeneration: number; placements: number } | undefined;

  constructor(key: string | WorkspaceKey, root: string, settings: WorkspaceSettings) {
    this.key = typeof key === 'string' ? { sessionId: key } : key;
    this.sessionId = this.key.sessionId;
    this.artifactScope = workspaceKeyId(this.key);
    this.root = root;
    this.settings = settings;
    this.files = settings.runtime.files(root);
    this.metadataQueue = new MetadataWriteQueue({
      read: async () =>
        (await readHostRecord(root)) ?? recordOfCopiesFound(this.files, this.sessionId, settings.stageMode),
      fresh: () => freshMetadata(this.sessionId, new Date()),
      write: async (metadata) => {
        // Another process on this workspace may have staged skills since this one read the record:
        // they stay recorded (records are only ever added or replaced, never dropped).
        // The record is read back only when someone else wrote it since this workspace's last write.
        const stored =
          this.recordVersion !== undefined && hostRecordVersion(root) === this.recordVersion
            ? undefined
            : await readHostRecord(root);
        for (const [name, record] of Object.entries(stored?.skills ?? {})) metadata.skills[name] ??= record;
        const { copyError, recordVersion } = await storeMetadata(root, this.files, metadata);
        this.copyWriteError = copyError;
        this.recordVersion = recordVersion;
      },
    });
    this.paths = { hostRoot: root, guestRoot: settings.runtime.guestPath(root, root) };
  }

  /**
   * True while a command or background process runs here or a turn is held or waited for; expiry
   * cleanup leaves such a workspace alone (a background process is bounded by its lifetime).
   */
  get busy(): boolean {
    return this.activeRuns > 0 || this.turns.held > 0 || this.processes.running > 0;
  }

  /**
   * Runs `work` while no other staging, run or collection of this workspace does. Calls queue in
   * order; a call made from inside `work` joins the turn instead of waiting for it.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.turns.exclusive(work);
  }

  /**
   * Runs a file tool's work in the workspace's turn, on its layout as the last command left it;
   * `writes` marks that it places files, so the next usage count walks instead of reusing the last.
   */
  fileWork<T>(work: () => Promise<T>, options: { writes: boolean }): Promise<T> {
    return this.exclusive(async () => {
      await this.ensureLayoutSinceLastRun();
      if (options.writes) this.placements += 1;
      return work();
    });
  }

  /** How `relative` looks to the running process. */
  guestPath(relative: string): string {
    return this.settings.runtime.guestPath(path.join(this.root, relative), this.root);
  }

  /** The workspace's metadata (the host's record, read on first use); a copy. */
  async metadata(): Promise<WorkspaceMetadata> {
    return structuredClone(await this.currentMetadata());
  }

  /**
   * Every skill the host has staged into this workspace, sorted: this process's record and the one
   * on disk now, which another process on the same workspace may have added to since this one read
   * it. What an approval counts as reachable must not miss a skill another process staged.
   */
  async stagedSkillNames(): Promise<string[]> {
    const [current, stored] = await Promise.all([this.currentMetadata(), readHostRecord(this.root)]);
    return [...new Set([...Object.keys(current.skills), ...Object.keys(stored?.skills ?? {})])].sort();
  }

  /**
   * Applies `change` and writes the host's record (and metadata.json) atomically; resolves once a
   * record holding the change is on disk. A change that throws changes nothing.
   */
  async updateMetadata(change: (metadata: WorkspaceMetadata) => void): Promise<void> {
    return this.changeMetadata((current) => {
      const draft = structuredClone(current);
      change(draft);
      return draft;
    });
  }

  /**
   * Resolves when every change made so far is on disk; throws when the last write of the host's
   * record failed, or metadata.json still cannot be written (after one more try).
   */
  async flushMetadata(): Promise<void> {
    await this.metadataQueue.flush();
    if (this.copyWriteError !== undefined) {
      const metadata = await this.currentMetadata();
      await writeMetadata(this.files, metadata).catch((error: unknown) => {
        this.copyWriteError = error;
        throw error;
      });
      this.copyWriteError = undefined;
    }
  }

  private currentMetadata(): Promise<WorkspaceMetadata> {
    return this.metadataQueue.current();
  }

  private changeMetadata(change: (metadata: WorkspaceMetadata) => WorkspaceMetadata): Promise<void> {
    return this.metadataQueue.change(change);
  }

  /**
   * ensureLayout, skipped when the layout was checked since the last command started or ended: in
   * between, nothing this workspace runs can have changed it, so one check serves a whole tool call
   * (staging, inputs and the run) instead of one per step.
   */
  private async ensureLayoutSinceLastRun(): Promise<void> {
    if (this.layoutCheckedGeneration !== this.runGeneration) await this.ensureLayout();
  }

  /** Recreates a top-level folder the process removed or replaced by a link. */
  async ensureLayout(): Promise<void> {
    const generation = this.runGeneration;
    await this.repairLayout();
    // A check that overlapped a command proves nothing about the layout after it, and a background
    // process may change the layout at any moment, so while one runs every step checks again.
    if (this.activeRuns === 0 && this.processes.running === 0 && generation === this.runGeneration)
      this.layoutCheckedGeneration = generation;
  }

  private repairLayout(): Promise<void> {
    return this.files.ensureFolders([
      workspaceFolders.skills,
      workspaceFolders.work,
      workspaceFolders.inputs,
      workspaceFolders.out,
      workspaceFolders.runs,
      homeFolder,
    ]);
  }

  /**
   * Stages a skill into `skills/<name>/`, or does nothing when the copy is current. Given the
   * skill's definition (as `repository` returned it just now), staging does not fetch it again.
   */
  async stageSkill(
    skill: string | Skill,
    context?: SkillContext,
    repository: SkillRepository = this.settings.repository,
  ): Promise<StagedSkill> {
    const name = typeof skill === 'string' ? skill : skill.name;
    assertStageableName(name);
    return this.exclusive(() =>
      this.withSkillLock(name, () =>
        inSpan('workspace.stage.skill', { 'skill.name': name, 'workspace.session': this.sessionId }, async (span) => {
          // An unknown skill is refused before the workspace is touched.
          const definition = typeof skill === 'string' ? await repository.get(name, context) : skill;
          const [current] = await Promise.all([this.currentMetadata(), this.ensureLayoutSinceLastRun()]);
          const previous = current.skills[definition.name];
          const { staged, record, copyInode } = await stageSkill({
            files: this.files,
            skill: definition,
            repository,
            context,
            mode: this.settings.stageMode,
            previous,
            expectedCopyInode: previous?.copy_inode,
          });
          if (staged.staged) this.placements += 1;
          // As with the layout check: what held while nothing ran holds until a command starts.
          if (record.mode === 'copy' && this.activeRuns === 0 && this.processes.running === 0)
            this.copiesChecked.set(definition.name, this.runGeneration);
          span.setAttribute('skill.staged', staged.staged);
          if (
            staged.staged ||
            previous?.manifest !== record.manifest ||
            previous?.digest !== record.digest ||
            previous?.copy_inode !== copyInode
          ) {
            await this.changeMetadata((metadata) => {
              metadata.skills[definition.name] = record;
              return metadata;
            });
          }
          return staged;
        }),
      ),
    );
  }

  /** Stages inputs in order; the first failure stops and is thrown (earlier inputs stay). */
  async stageInputs(
    specs: readonly InputSpec[],
    options: { hostAccess: boolean | readonly string[]; skillContext?: SkillContext; repository?: SkillRepository },
  ): Promise<StagedInput[]> {
    if (specs.length === 0) return [];
    return this.exclusive(() =>
      inSpan(
        'workspace.stage.inputs',
        { 'workspace.session': this.sessionId, 'inputs.count': specs.length },
        async () => {
          await this.ensureLayoutSinceLastRun();
          const staged: StagedInput[] = [];
          // Counted before the first one is placed: a failure may leave the earlier ones.
          this.placements += 1;
          for (const spec of specs) {
            staged.push(
              await stageInput(spec, {
                files: this.files,
                paths: this.paths,
                artifactScope: this.artifactScope,
                repository: options.repository ?? this.settings.repository,
                skillContext: options.skillContext,
                artifacts: this.settings.artifacts,
                hostAccess: options.hostAccess,
                hostLinks: !this.settings.runtime.isolated,
              }),
            );
          }
          const ts = new Date().toISOString();
          await this.changeMetadata((metadata) => {
            metadata.inputs.push(
              ...staged.map((input) => {
                const { host: _host, ...record } = input;
                return { ...record, from: recordedSource(input), ts };
              }),
            );
            return metadata;
          });
          return staged;
        },
      ),
    );
  }

  /**
   * The workspace-relative folder a command runs in. Blank means the skill's copy (or the root);
   * a relative path is taken from there; `$WORK_DIR/...` and absolute paths inside the workspace are
   * accepted. Leaving the workspace, or passing through a link that leaves it, is refused.
   */
  async resolveCwd(cwd: string | undefined, skill?: string): Promise<string> {
    const base = skill === undefined ? '' : `${workspaceFolders.skills}/${skill}`;
    const relative = cwd === undefined || cwd.trim() === '' ? base : toWorkspaceRelative(cwd, base, this.paths);
    // The skill's copy, found a folder by staging since the last command started or ended, is
    // there still: nothing of this workspace has run since (a skill_run stages, then runs).
    const copyChecked =
      skill !== undefined &&
      relative === base &&
      this.processes.running === 0 &&
      this.copiesChecked.get(skill) === this.runGeneration;
    if (!copyChecked) await this.files.makeFolder(relative);
    return relative;
  }

  /**
   * What the workspace holds, judged against `limits`. A complete count taken since the last
   * command started or ended and since this process last placed files is reused instead of walking
   * the workspace again, unless a background process runs: between those moments only metadata.json changes (by a few kilobytes,
   * within the over-quota slack of `watchLimits`). The count while a command runs, and the first one
   * after it, always walk. Another process writing the same workspace is not seen until the next run.
   */
  async usage(limits: WorkspaceQuota): Promise<WorkspaceUsage> {
    const cached = this.lastUsage;
    // A background process writes at any time: while one runs, every count walks.
    if (
      cached !== undefined &&
      this.processes.running === 0 &&
      cached.runGeneration === this.runGeneration &&
      cached.placements === this.placements
    )
      return judgedAgainst(cached.usage, limits);
    const runGeneration = this.runGeneration;
    const placements = this.placements;
    const usage = await this.files.measure(limits);
    // Only a complete count (no limit passed) holds for other limits; one that overlapped a run holds for none.
    if (
      usage.exceeded === undefined &&
      this.activeRuns === 0 &&
      this.processes.running === 0 &&
      runGeneration === this.runGeneration &&
      placements === this.placements
    )
      this.lastUsage = { usage: { bytes: usage.bytes, files: usage.files }, runGeneration, placements };
    return usage;
  }

  /** Runs one command with the workspace environment; the caller collects outputs afterwards. */
  async run(request: WorkspaceRunRequest): Promise<WorkspaceRunOutcome> {
    return this.exclusive(() => this.runInTurn(request));
  }

  private async runInTurn(request: WorkspaceRunRequest): Promise<WorkspaceRunOutcome> {
    const { command, cwd, runDir } = await this.prepareCommand(request, {
      stdin: request.stdin,
      abortSignal: request.abortSignal,
      ...(request.runId === undefined ? {} : { runId: request.runId }),
      ...(request.retrySafe === undefined ? {} : { retrySafe: request.retrySafe }),
    });
    this.activeRuns += 1;
    this.runGeneration += 1;
    let result: RuntimeResult;
    try {
      result = await this.settings.runtime.run(command);
    } finally {
      this.activeRuns -= 1;
      this.runGeneration += 1;
    }
    // A run folder the command left empty goes: a long session's commands would otherwise leave one
    // each, and every quota walk after every later run visits them all (300 runs of `true` made
    // the walk after each run cost 13 ms). One that holds anything stays, for collection and people.
    await this.files.removeEmptyFolder?.(runDir);
    // No metadata is written for a run (docs/workspaces.md, "The host's record, in memory"): the result goes back to the
    // caller, who keeps it (a session's tool result), and rewriting the record for it was a third of
    // what a warm skill_run cost on top of the command.
    return { result, runDir, cwd };
  }

  /**
   * Starts a command in the background (docs/long-running-commands.md), with the environment, cwd
   * and run folder a run would get and the runtime's confinement, and records it in `processes`
   * under a random id. Only the start takes the workspace's turn: the process then runs alongside
   * staging and collection, which stay safe because host file operations on a workspace are
   * anchored against links swapped in meanwhile (src/runtime/anchored-folder.ts). Refused with
   * BackgroundProcessError when `maxConcurrent` processes run already or the runtime has no `start`.
   */
  async start(request: WorkspaceStartRequest): Promise<BackgroundProcessRecord> {
    const runtime = this.settings.runtime;
    if (runtime.start === undefined) {
      throw new BackgroundProcessError(
        `the ${runtime.kind} runtime cannot run commands in the background; run the command without background`,
      );
    }
    const startProcess = runtime.start.bind(runtime);
    return this.processes.start(request.maxConcurrent, () =>
      this.exclusive(async () => {
        const { command, cwd, runDir } = await this.prepareCommand(request);
        // Counted as a command start: the layout may change from here on.
        this.runGeneration += 1;
        const handle = await startProcess(command).catch(async (error: unknown) => {
          // A start the runtime refused ran nothing: like a refused run, it leaves no run folder.
          await this.files.remove(runDir).catch(() => undefined);
          throw error;
        });
        void handle.exited.then(() => {
          this.runGeneration += 1;
        });
        // Taken in the same turn as the start: no staging can come between.
        const skills = [...new Set([...(request.reachableSkills ?? []), ...(await this.stagedSkillNames())])].sort();
        return { handle, command: request.command ?? (request.argv ?? []).join(' '), cwd, runDir, skills };
      }),
    );
  }

  /** Kills every background process of this workspace and waits for them to end. */
  async stopProcesses(): Promise<void> {
    await this.processes.killAll();
    await this.settings.runtime.stopProcesses?.(this.root);
  }

  /** What a run and a background start share: the layout checked, then prepare-workspace-command.ts. */
  private async prepareCommand(
    request: WorkspaceRunRequest | WorkspaceStartRequest,
    runOnly: Pick<WorkspaceRunRequest, 'stdin' | 'abortSignal' | 'runId' | 'retrySafe'> = {},
  ): Promise<PreparedCommand> {
    await this.ensureLayoutSinceLastRun();
    return prepareWorkspaceCommand(
      {
        root: this.root,
        files: this.files,
        readOnlyPaths: this.settings.readOnlyPaths ?? [],
        guestPath: (relative) => this.guestPath(relative),
        isStaged: async (skill) => (await this.currentMetadata()).skills[skill] !== undefined,
        resolveCwd: (cwd, skill) => this.resolveCwd(cwd, skill),
      },
      request,
      runOnly,
    );
  }

  /**
   * Collects output files. Patterns may be written as `out/*.txt`, `$OUTPUT_DIR/**`, `${WORK_DIR}/x`,
   * `workspace://out/a`, or relative to `cwd` when they do not start with a workspace folder.
   */
  async collect(
    patterns: readonly string[],
    options: { cwd?: string; runDir?: string; limits?: OutputLimits } = {},
  ): Promise<CollectedOutputs> {
    return this.exclusive(() =>
      inSpan(
        'workspace.collect',
        { 'workspace.session': this.sessionId, 'collect.patterns': patterns.length },
        async (span) => {
          const found = await this.findOutputs(patterns, options);
          const collected = await readOutputs(this.files, found.matches, options.limits ?? defaultOutputLimits);
          span.setAttribute('collect.files', collected.files.length);
          return { ...collected, warnings: [...found.warnings, ...collected.warnings] };
        },
      ),
    );
  }

  /**
   * The files the patterns match (written as for `collect`), without reading them; with
   * `modifiedSince`, only files modified since then. `readOutputs` reads what the caller keeps.
   */
  async findOutputs(
    patterns: readonly string[],
    options: { cwd?: string; runDir?: string; modifiedSince?: number } = {},
  ): Promise<{ matches: OutputMatch[]; warnings: string[] }> {
    const { normalized, warnings } = resolveOutputPatterns(patterns, options.cwd ?? '', {
      ...this.paths,
      runDir: options.runDir,
    });
    if (normalized.length === 0) return { matches: [], warnings };
    const found = await this.exclusive(() =>
      findOutputs(
        this.files,
        normalized,
        options.modifiedSince === undefined ? {} : { modifiedSince: options.modifiedSince },
      ),
    );
    return { matches: found.matches, warnings: [...warnings, ...found.warnings] };
  }

  /** Reads matched files within the limits. */
  readOutputs(matches: readonly OutputMatch[], limits: OutputLimits = defaultOutputLimits): Promise<CollectedOutputs> {
    return this.exclusive(() => readOutputs(this.files, matches, limits));
  }

  private async withSkillLock<T>(name: string, work: () => Promise<T>): Promise<T> {
    const previous = this.skillLocks.get(name) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.skillLocks.set(name, settled);
    try {
      return await next;
    } finally {
      if (this.skillLocks.get(name) === settled) this.skillLocks.delete(name);
    }
  }
}
