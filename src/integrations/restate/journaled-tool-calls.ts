import type { Tool } from 'ai';
import { isRetrySafeSkill } from '../../format/retry-safe.js';
import type { SkillRepository } from '../../repository/types.js';
import type { StateDelta } from '../../state/state-delta.js';
import { disclosureToolNames, isSkillToolName } from '../../tools/tool-names.js';
import type { JournaledToolCall, ToolCallOutcome, TurnDurability } from '../ai-sdk/turn-durability.js';
import type { TurnJournal } from './turn-journal.js';

/** What a model is told for a call whose worker was lost while it ran (agreed wording, see docs/durable-turns.md). */
export const lostRunMessage = 'the worker was lost during the run; it may have had effects';

/** A tool call's outcome as journaled: its output and state change, or the error the model was shown. */
interface JournaledOutcome {
  output?: unknown;
  delta: StateDelta;
  error?: { message: string; name?: string; code?: string };
}

/** Which lost calls may simply run again. */
export interface LostCallRule {
  repository: SkillRepository;
  /** The caller's own tools whose calls may run again after a lost run. */
  retrySafeTools: readonly string[];
  /** Commands run where a durable run ledger answers a repeated run id (sandbox workers with `--ledger`). */
  runLedger: boolean;
}

/** The disclosure tools only read skills and change disclosure state, which a replay rebuilds: they run again. */
const readOnlyTools: ReadonlySet<string> = new Set<string>(disclosureToolNames);

/**
 * True when a call interrupted mid-way may run again: a disclosure tool, `skill_run` of a skill
 * declaring `metadata: { skillbox-retry: safe }`, one of the caller's tools named retry-safe, or a
 * command when a durable run ledger answers its run id (`runLedger`).
 * Everything else may have had effects (a script that appended to a file, sent a mail).
 */
export async function mayRunLostCallAgain(call: JournaledToolCall, rule: LostCallRule): Promise<boolean> {
  if (readOnlyTools.has(call.toolName)) return true;
  if (!isSkillToolName(call.toolName)) return rule.retrySafeTools.includes(call.toolName);
  // The same run id reaches the ledger, which decides: recorded result, the run still going, or lost.
  if (rule.runLedger && (call.toolName === 'skill_run' || call.toolName === 'workspace_exec')) return true;
  if (call.toolName !== 'skill_run') return false;
  const skillName = (call.input as { skill?: unknown } | null)?.skill;
  if (typeof skillName !== 'string') return false;
  const skill = await rule.repository.get(skillName).catch(() => undefined);
  return skill !== undefined && isRetrySafeSkill(skill);
}

/**
 * Runs a call's work at most once across attempts: a `started` marker, then the outcome, each a
 * journal entry. A replay answers from the outcome entry. When the marker is there but not the
 * outcome, the call was lost mid-way: it runs again only when `mayRunLostCallAgain` says so, and
 * otherwise fails with `lostRunMessage` (journaled, so every later replay says the same).
 */
export function journalToolCalls(journal: TurnJournal, rule: LostCallRule): TurnDurability['journalToolCall'] {
  return async (call, work, apply) => {
    let firstAttempt = false;
    await journal.run(`tool ${call.toolCallId} started`, async () => {
      firstAttempt = true;
      return true;
    });
    let ran = false;
    const outcome = await journal.run<JournaledOutcome>(`tool ${call.toolCallId}`, async () => {
      if (!firstAttempt && !(await mayRunLostCallAgain(call, rule)))
        return { delta: {}, error: { message: lostRunMessage } };
      ran = true;
      try {
        const { output, delta } = await work();
        return { output, delta };
      } catch (error) {
        return { delta: {}, error: errorFacts(error) };
      }
    });
    // The work committed its own change; a replay (or a journaled lost run) puts the recorded one in.
    if (!ran && Object.keys(outcome.delta).length > 0) apply(outcome.delta);
    if (outcome.error !== undefined) throw rebuiltError(outcome.error);
    return { output: outcome.output, delta: outcome.delta } satisfies ToolCallOutcome;
  };
}

/**
 * The turn's tools with their calls run one at a time, in the order the model's stream starts them:
 * journal entries must be made in the same order on every replay. The caller's own tools are
 * journaled like skillbox's (without a state change).
 */
export function journalCustomTools(
  journal: TurnJournal,
  rule: LostCallRule,
): (tools: Readonly<Record<string, Tool>>) => Record<string, Tool> {
  const journalCall = journalToolCalls(journal, rule);
  let queue: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  return (tools) =>
    Object.fromEntries(
      Object.entries(tools).map(([name, tool]) => {
        const execute = tool.execute;
        if (execute === undefined) return [name, tool];
        const own = !isSkillToolName(name);
        const wrapped: Tool = {
          ...tool,
          execute: (input: unknown, options: { toolCallId: string }) =>
            oneAtATime(async () => {
              // biome-ignore lint/suspicious/noExplicitAny: the AI SDK's execute is typed per tool.
              const run = () => (execute as any)(input, options) as Promise<unknown>;
              if (!own) return run();
              const call = { toolCallId: options.toolCallId, toolName: name, input };
              const { output } = await journalCall(
                call,
                async () => ({ output: await run(), delta: {} }),
                () => {},
              );
              return output;
            }),
        } as Tool;
        return [name, wrapped];
      }),
    );
}

function errorFacts(error: unknown): NonNullable<JournaledOutcome['error']> {
  if (!(error instanceof Error)) return { message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { message: error.message, name: error.name, ...(typeof code === 'string' ? { code } : {}) };
}

function rebuiltError(facts: NonNullable<JournaledOutcome['error']>): Error {
  const error = new Error(facts.message);
  if (facts.name !== undefined) error.name = facts.name;
  if (facts.code !== undefined) Object.assign(error, { code: facts.code });
  return error;
}
