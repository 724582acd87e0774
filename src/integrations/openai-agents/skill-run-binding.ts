import type { DeclaredSkillLoad } from '../../disclosure/declared-loads.js';
import type { SkillContext } from '../../repository/types.js';
import type { AgentsSkillSession } from './agents-skill-session.js';
import { AgentsRunNotBoundError } from './errors.js';

/** What one SDK run knows about skills: its session, the caller's visibility context, which agents began their turn. */
export interface SkillRunBinding {
  session: AgentsSkillSession;
  skillContext?: SkillContext;
  /** Skills loaded for this run before the first model call, per agent name. */
  skillLoads?: Readonly<Record<string, readonly DeclaredSkillLoad[]>>;
  /** Model calls made so far in this run (the input filter counts them): a new call resolves the loaded skills again. */
  modelCalls: number;
  /**
   * Each agent's turn start, once per run: the SDK asks every tool's isEnabled at once, and the
   * turn must start exactly once before any of them reads the state.
   */
  turnStarts: Map<string, Promise<void>>;
  /** Each agent's resolved step, with the model call and state it was resolved for. */
  steps: Map<string, { fingerprint: string; step: Promise<unknown> }>;
}

// The SDK hands tools, instructions and the input filter the run's context object as given; keying
// the binding by that object leaves the caller's context untouched (no property to collide with, nothing serialised).
const bindings = new WeakMap<object, SkillRunBinding>();

/** Ties a run's context object to its skill binding. */
export function bindRunContext(context: object, binding: SkillRunBinding): void {
  bindings.set(context, binding);
}

/** The binding of the run whose context this is; throws naming `where` for a run not started through `runOptions`. */
export function bindingOfRunContext(context: unknown, where: string): SkillRunBinding {
  const binding = typeof context === 'object' && context !== null ? bindings.get(context) : undefined;
  if (binding === undefined) throw new AgentsRunNotBoundError(where);
  return binding;
}
