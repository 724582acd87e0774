import { lstat, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { SkillContext, SkillRepository } from '../repository/types.js';
import type { RuntimeResult, WorkspaceRuntime } from './runtime-types.js';
import type { ArtifactStore } from './artifact-store.js';
import { stageInput, type InputSpec, type StagedInput } from './input-stager.js';
import { collectOutputs, defaultOutputLimits, type CollectedOutputs, type OutputLimits } from './output-collector.js';
import { buildRunEnvironment } from './run-environment.js';
import { assertStageableName, stageSkill, type StagedSkill, type StageMode } from './skill-stager.js';
import { freshMetadata, readMetadata, writeMetadata, type WorkspaceMetadata } from './workspace-metadata.js';
import { ensureDirectoryInside, toWorkspaceRelative, workspaceFolders, type WorkspacePathContext } from './workspace-paths.js';

const tracer = trace.getTracer('skillbox');

/** Runs `work` inside a span named `name`, recording failures, as the Go seed names its spans. */
export async function inSpan<T>(name: string, attributes: Record<string, string | number | boolean>, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Settings a workspace shares with its manager. */
export interface WorkspaceSettings {
  runtime: WorkspaceRuntime;
  repository: SkillRepository;
  stageMode: StageMode;
  artifacts?: ArtifactStore;
}

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
  abortSignal?: AbortSignal;
}

export interface WorkspaceRunOutcome {
  result: RuntimeResult;
  /** Workspace-relative folder of this run: `runs/run_<timestamp>`. */
  runDir: string;
  /** Workspace-relative cwd the command ran in. */
  cwd: string;
}

/**
 * One session's workspace on disk. Methods may be called concurrently: metadata updates are
 * serialised, and staging of one skill is never interleaved with itself.
 */
export class Workspace {
  readonly sessionId: string;
  /** Real host path of the workspace folder. */
  readonly root: string;
  readonly paths: WorkspacePathContext;
  private readonly settings: WorkspaceSettings;
  private metadataQueue: Promise<unknown> = Promise.resolve();
  private readonly skillLocks = new Map<string, Promise<unknown>>();
  private activeRuns = 0;

  constructor(sessionId: string, root: string, settings: WorkspaceSettings) {
    this.sessionId = sessionId;
    this.root = root;
    this.settings = settings;
    this.paths = { hostRoot: root, guestRoot: settings.runtime.guestPath(root, root) };
  }

  /** True while a command runs here; expiry cleanup leaves such a workspace alone. */
  get busy(): boolean {
    return this.activeRuns > 0;
  }

  /** How `relative` looks to the running process. */
  guestPath(relative: string): string {
    return this.settings.runtime.guestPath(path.join(this.root, relative), this.root);
  }

  /** Reads metadata.json (fresh metadata when it is missing or damaged). */
  async metadata(): Promise<WorkspaceMetadata> {
    return (await readMetadata(this.root)) ?? freshMetadata(this.sessionId, new Date());
  }

  /** Applies `change` to metadata.json atomically, one change at a time. */
  async updateMetadata(change: (metadata: WorkspaceMetadata) => void): Promise<void> {
    const next = this.metadataQueue.then(async () => {
      const metadata = await this.metadata();
      change(metadata);
      const now = new Date().toISOString();
      metadata.updated_at = now;
      metadata.last_access = now;
      await writeMetadata(this.root, metadata);
    });
    this.metadataQueue = next.catch(() => undefined);
    return next;
  }

  /** Recreates a top-level folder the process removed or replaced by a link. */
  async ensureLayout(): Promise<void> {
    for (const folder of [workspaceFolders.skills, workspaceFolders.work, workspaceFolders.inputs, workspaceFolders.out, workspaceFolders.runs, homeFolder]) {
      const absolute = path.join(this.root, folder);
      const stats = await lstat(absolute).catch(() => undefined);
      if (stats?.isDirectory()) continue;
      if (stats !== undefined) await rm(absolute, { recursive: true, force: true });
      await mkdir(absolute, { recursive: true, mode: 0o755 });
    }
  }

  /** Stages a skill into `skills/<name>/`, or does nothing when the copy is current. */
  async stageSkill(name: string, context?: SkillContext): Promise<StagedSkill> {
    assertStageableName(name);
    return this.withSkillLock(name, () =>
      inSpan('workspace.stage.skill', { 'skill.name': name, 'workspace.session': this.sessionId }, async (span) => {
        const skill = await this.settings.repository.get(name, context);
        await this.ensureLayout();
        const previous = (await this.metadata()).skills[skill.name];
        const { staged, record } = await stageSkill({ root: this.root, skill, repository: this.settings.repository, context, mode: this.settings.stageMode, previous });
        span.setAttribute('skill.staged', staged.staged);
        if (staged.staged || previous?.manifest !== record.manifest || previous?.digest !== record.digest) {
          await this.updateMetadata((metadata) => {
            metadata.skills[skill.name] = record;
          });
        }
        return staged;
      }),
    );
  }

  /** Stages inputs in order; the first failure stops and is thrown (earlier inputs stay). */
  async stageInputs(specs: readonly InputSpec[], options: { hostAccess: boolean | readonly string[]; skillContext?: SkillContext }): Promise<StagedInput[]> {
    if (specs.length === 0) return [];
    return inSpan('workspace.stage.inputs', { 'workspace.session': this.sessionId, 'inputs.count': specs.length }, async () => {
      await this.ensureLayout();
      const staged: StagedInput[] = [];
      for (const spec of specs) {
        staged.push(
          await stageInput(spec, {
            root: this.root,
            paths: this.paths,
            sessionId: this.sessionId,
            repository: this.settings.repository,
            skillContext: options.skillContext,
            artifacts: this.settings.artifacts,
            hostAccess: options.hostAccess,
            hostLinks: !this.settings.runtime.isolated,
          }),
        );
      }
      const ts = new Date().toISOString();
      await this.updateMetadata((metadata) => {
        metadata.inputs.push(...staged.map((input) => ({ ...input, ts })));
      });
      return staged;
    });
  }

  /**
   * The workspace-relative folder a command runs in. Blank means the skill's copy (or the root);
   * a relative path is taken from there; `$WORK_DIR/...` and absolute paths inside the workspace are
   * accepted. Leaving the workspace, or passing through a link that leaves it, is refused.
   */
  async resolveCwd(cwd: string | undefined, skill?: string): Promise<string> {
    const base = skill === undefined ? '' : `${workspaceFolders.skills}/${skill}`;
    const relative = cwd === undefined || cwd.trim() === '' ? base : toWorkspaceRelative(cwd, base, this.paths);
    await ensureDirectoryInside(this.root, relative);
    return relative;
  }

  /** Runs one command with the workspace environment; the caller collects outputs afterwards. */
  async run(request: WorkspaceRunRequest): Promise<WorkspaceRunOutcome> {
    await this.ensureLayout();
    const cwd = await this.resolveCwd(request.cwd, request.skill);
    const runDir = await this.createRunFolder();
    const skillFolder = request.skill === undefined ? undefined : `${workspaceFolders.skills}/${request.skill}`;
    const hasVirtualEnv = skillFolder !== undefined && (await lstat(path.join(this.root, skillFolder, '.venv')).then((stats) => stats.isDirectory(), () => false));
    const env = buildRunEnvironment({
      folders: {
        workspace: this.guestPath(''),
        skills: this.guestPath(workspaceFolders.skills),
        work: this.guestPath(workspaceFolders.work),
        output: this.guestPath(workspaceFolders.out),
        run: this.guestPath(runDir),
      },
      home: this.guestPath(homeFolder),
      skill: request.skill === undefined || skillFolder === undefined ? undefined : { name: request.skill, guestPath: this.guestPath(skillFolder), hasVirtualEnv },
      allowedHost: request.hostEnv ?? {},
      caller: request.env ?? {},
    });
    const startedAt = new Date().toISOString();
    this.activeRuns += 1;
    let result: RuntimeResult;
    try {
      result = await this.settings.runtime.run({
        ...(request.argv === undefined ? { command: request.command } : { argv: request.argv }),
        workspaceRoot: this.root,
        cwd: path.join(this.root, cwd),
        env,
        stdin: request.stdin,
        timeoutMs: request.timeoutMs,
        maxOutputBytes: request.maxOutputBytes,
        network: request.network ?? false,
        abortSignal: request.abortSignal,
      });
    } finally {
      this.activeRuns -= 1;
    }
    await this.updateMetadata((metadata) => {
      metadata.runs.push({
        run_dir: runDir,
        ...(request.skill === undefined ? {} : { skill: request.skill }),
        exit_code: result.exitCode,
        timed_out: result.timedOut,
        duration_ms: Math.round(result.durationMs),
        started_at: startedAt,
      });
    });
    return { result, runDir, cwd };
  }

  /**
   * Collects output files. Patterns may be written as `out/*.txt`, `$OUTPUT_DIR/**`, `${WORK_DIR}/x`,
   * `workspace://out/a`, or relative to `cwd` when they do not start with a workspace folder.
   */
  async collect(patterns: readonly string[], options: { cwd?: string; runDir?: string; limits?: OutputLimits } = {}): Promise<CollectedOutputs> {
    return inSpan('workspace.collect', { 'workspace.session': this.sessionId, 'collect.patterns': patterns.length }, async (span) => {
      const warnings: string[] = [];
      const normalized: string[] = [];
      const context = { ...this.paths, runDir: options.runDir };
      for (const pattern of patterns) {
        const trimmed = pattern.trim().replace(/\\/g, '/');
        if (trimmed === '') continue;
        const first = trimmed.replace(/^workspace:\/\//, '').split('/')[0] ?? '';
        const workspaceRooted = first.startsWith('$') || trimmed.startsWith('/') || trimmed.startsWith('workspace://') || topLevelNames.has(first);
        try {
          normalized.push(toWorkspaceRelative(trimmed, workspaceRooted ? '' : (options.cwd ?? ''), context));
        } catch (error) {
          warnings.push(`output pattern "${pattern}" ignored: ${(error as Error).message}`);
        }
      }
      const collected = await collectOutputs(this.root, normalized, options.limits ?? defaultOutputLimits);
      span.setAttribute('collect.files', collected.files.length);
      return { ...collected, warnings: [...warnings, ...collected.warnings] };
    });
  }

  private async createRunFolder(): Promise<string> {
    const runs = await ensureDirectoryInside(this.root, workspaceFolders.runs);
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('Z', '');
    for (let attempt = 0; ; attempt += 1) {
      const name = `run_${stamp}${attempt === 0 ? '' : `_${attempt + 1}`}`;
      try {
        // Exclusive creation: two runs in the same millisecond get distinct folders.
        await mkdir(path.join(runs, name));
        return `${workspaceFolders.runs}/${name}`;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
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

/** HOME of every command: inside the workspace so tools that keep caches or settings can write them. */
export const homeFolder = 'work/.home';

const topLevelNames = new Set<string>([workspaceFolders.skills, workspaceFolders.work, workspaceFolders.out, workspaceFolders.runs]);
