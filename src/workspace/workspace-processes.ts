import { randomBytes } from 'node:crypto';
import type { RuntimeProcess, RuntimeProcessExit } from '../runtime/runtime-process.js';
import { BackgroundProcessError } from './errors.js';
import type { QuotaLimit } from './workspace-quota.js';

/** One background process of a workspace, as the table keeps it. */
export interface BackgroundProcessRecord {
  /** The id callers name the process by: random, and looked up only in its own workspace's table. */
  readonly id: string;
  readonly handle: RuntimeProcess;
  /** The command as given (for listings and messages). */
  readonly command: string;
  /** Workspace-relative folder it runs in, and its run folder (`runs/run_<timestamp>`). */
  readonly cwd: string;
  readonly runDir: string;
  readonly startedAt: Date;
  /**
   * The skills in the workspace or loaded when it started, sorted: what its start was judged
   * against, so what it is approved to reach. An approval gate refuses to stage a listed skill
   * beside a running process whose list lacks it (approvals/approval-gate.ts).
   */
  readonly skills: readonly string[];
  /** What the host said about the process while it ran (a quota stop), reported with its exit. */
  readonly notes: string[];
  /** Workspace limits that stopped it. */
  readonly limitsHit: QuotaLimit[];
  /** Set once the process has ended. */
  exit?: RuntimeProcessExit;
  endedAt?: Date;
}

/** How long an ended process stays in the table, so its last output and exit can still be read. */
export const endedProcessRetentionMs = 30 * 60 * 1000;
/** At most this many ended processes are kept; the oldest go first. */
export const maxEndedProcesses = 32;

/**
 * The background processes of one workspace (one session): the only place their ids resolve, so
 * another session cannot poll, write to or kill them even with a guessed id (which is random as
 * well). Counts running processes against a limit, reserving a slot before the (asynchronous)
 * start so two concurrent starts cannot both slip under it.
 */
export class WorkspaceProcesses {
  private readonly records = new Map<string, BackgroundProcessRecord>();
  private starting = 0;

  /** Processes running or being started. */
  get running(): number {
    let count = this.starting;
    for (const record of this.records.values()) if (record.exit === undefined) count += 1;
    return count;
  }

  /**
   * Runs `start` holding one of `maxConcurrent` slots, and records the process it returns. Refused
   * with BackgroundProcessError when every slot is taken.
   */
  async start(
    maxConcurrent: number,
    start: () => Promise<Omit<BackgroundProcessRecord, 'id' | 'startedAt' | 'notes' | 'limitsHit'>>,
  ): Promise<BackgroundProcessRecord> {
    this.prune(Date.now());
    if (this.running >= maxConcurrent) {
      throw new BackgroundProcessError(
        `${this.running} background processes are running in this session, the most allowed (${maxConcurrent}); ` +
          'kill one with workspace_kill or wait for one to end',
      );
    }
    this.starting += 1;
    try {
      const started = await start();
      const record: BackgroundProcessRecord = {
        ...started,
        id: `proc_${randomBytes(12).toString('base64url')}`,
        startedAt: new Date(),
        notes: [],
        limitsHit: [],
      };
      this.records.set(record.id, record);
      void record.handle.exited.then((exit) => {
        record.exit = exit;
        record.endedAt = new Date();
      });
      return record;
    } finally {
      this.starting -= 1;
    }
  }

  /** The process named `id`, or a BackgroundProcessError that says the id is unknown here. */
  get(id: string): BackgroundProcessRecord {
    this.prune(Date.now());
    const record = typeof id === 'string' ? this.records.get(id) : undefined;
    if (record === undefined) {
      throw new BackgroundProcessError(
        `unknown process id "${String(id)}" in this session; workspace_exec with background: true returns the ids`,
      );
    }
    return record;
  }

  list(): BackgroundProcessRecord[] {
    this.prune(Date.now());
    return [...this.records.values()];
  }

  /** Kills every process in the table and resolves once all have ended. */
  async killAll(): Promise<void> {
    await Promise.all([...this.records.values()].map((record) => record.handle.kill().catch(() => undefined)));
  }

  /** Drops ended processes past their retention, and the oldest beyond the count kept. */
  private prune(now: number): void {
    const ended = [...this.records.values()].filter((record) => record.endedAt !== undefined);
    for (const [index, record] of ended.entries()) {
      const expired = now - (record.endedAt as Date).getTime() > endedProcessRetentionMs;
      if (expired || index < ended.length - maxEndedProcesses) this.records.delete(record.id);
    }
  }
}
