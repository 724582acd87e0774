import type { z } from 'zod';
import type { SkillContext } from '../repository/types.js';
import type { StateView } from '../state/state-view.js';

/** Everything a tool may know about the call it serves. */
export interface ToolContext {
  sessionId: string;
  /** The user the session belongs to: with `appName` and `sessionId`, it picks the workspace (and its artifacts). */
  userId?: string;
  appName?: string;
  /** The agent the call belongs to: disclosure state is kept per agent. */
  agentName: string;
  toolCallId?: string;
  /**
   * Set by a durable turn: commands this call runs pass `runId: \`${runIdPrefix}/${toolCallId}\``, so a
   * runtime that keeps a ledger answers a repeated run with its recorded result.
   */
  runIdPrefix?: string;
  state: StateView;
  /** Visibility context (user, tenant, role) for the repository's filter. */
  skillContext?: SkillContext;
  abortSignal?: AbortSignal;
}

/**
 * A model-facing tool, independent of any agent framework. Integrations (AI SDK, MCP) adapt it.
 * `execute` throws SkillToolError for mistakes the model can correct; the message says what was
 * wrong and what to call instead.
 */
export interface ToolDefinition<Input = unknown, Output = unknown> {
  name: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  /**
   * `false` promises that `execute` never calls `context.state.set`, so integrations may run its
   * calls alongside others. Absent or `true`: calls on one session's agent run one at a time, each
   * seeing the previous call's writes.
   */
  writesState?: boolean;
  /**
   * What a call would do, for a person asked to approve it (docs/approvals.md): the exact command,
   * the skill, the files it stages, places and collects. Throws what `execute` would throw for a
   * call it refuses outright, so nobody is asked about a call that cannot run. Absent: the call is
   * described by its tool name and input.
   */
  describeCall?(input: Input, context: ToolContext): Promise<ToolCallDescription>;
  execute(input: Input, context: ToolContext): Promise<Output>;
  /**
   * Called when the session `context` names has ended (an MCP connection closed): the tool frees
   * what it holds for that session (the execution tools stop its background processes). With
   * `discard`, the session id can never be used again (the server made it up), so what the session
   * left may be removed too (the execution tools remove its workspace). Tools of one set may share
   * one function here; an integration calls each distinct function once.
   */
  endSession?(context: ToolContext, options: { discard: boolean }): Promise<void>;
  /**
   * True while the tool runs something for the session `context` names that no call in flight
   * shows (the execution tools: a background process, a command). An integration that ends idle
   * sessions to make room for new ones (the MCP HTTP server) never ends such a session. Shared
   * within a set like `endSession`.
   */
  sessionHoldsWork?(context: ToolContext): boolean;
}

/** What one call of a tool will do, as `describeCall` tells it. Paths are relative to the workspace root. */
export interface ToolCallDescription {
  /** The exact shell command the call runs. */
  command?: string;
  /** The skill whose copy the command runs in (`skill_run`). */
  skill?: string;
  /** The folder the command starts in, as the call gave it. */
  cwd?: string;
  /** Skills placed into the workspace before the command runs: the skill of `skill_run`, every loaded skill for `workspace_exec`. */
  stagedSkills: string[];
  /**
   * Other skills whose copies are in the workspace already (staged by earlier calls, or loaded): the
   * command can reach their files too, so their approval counts as well.
   */
  skillsInWorkspace?: string[];
  /** The files staging places, as `skills/<skill>/<path>`; at most `maxDescribedFiles` of them. */
  stagedFiles: string[];
  /** How many more files staging places than `stagedFiles` names (a skill with very many files). */
  stagedFilesLeftOut?: number;
  /** Files placed from `workspace://`, `skill://` or `artifact://` sources: where from and where to. */
  inputs: Array<{ from: string; to?: string }>;
  /** The globs of the files collected after the run. */
  outputs: string[];
  /**
   * The session's background processes running now, each with the skills it was started beside
   * (what its start was approved for). A process keeps running while later calls stage skills
   * next to it, and could run their scripts: an approval gate refuses to stage a skill that needs
   * approval beside a process not approved for it.
   */
  backgroundProcesses?: Array<{ id: string; command: string; skills: string[] }>;
}
