import { applyDeclaredLoads } from '../../disclosure/declared-loads.js';
import { selectActiveTools, type ToolSelection } from '../../disclosure/dynamic-tool-selection.js';
import type { LoadMode } from '../../disclosure/load-mode.js';
import { type ResolvedLoadedSkill, resolveLoadedSkills } from '../../disclosure/resolve-loaded-skills.js';
import { evictLeastRecentlyTouched } from '../../disclosure/skill-transitions.js';
import { beginTurn } from '../../disclosure/turn-lifecycle.js';
import type { SkillRepository } from '../../repository/types.js';
import { PendingStateWrites } from '../../state/pending-state-writes.js';
import { mergeDeltas, overlayState, type StateDelta } from '../../state/state-delta.js';
import type { AgentsSkillSession } from './agents-skill-session.js';
import type { SkillRunBinding } from './skill-run-binding.js';

/** What every step of every agent reads: the repository, the tools, the load mode and its limits. */
export interface AgentStepSettings {
  repository: SkillRepository;
  skillToolNames: readonly string[];
  poolToolNames: readonly string[];
  loadMode: LoadMode;
  maxLoadedSkills: number | undefined;
  enforceAllowedTools: boolean;
  allowedToolAliases?: Readonly<Record<string, readonly string[]>>;
}

/** One agent's step: the loaded skills as resolved for it and the tools it offers. */
export interface AgentStep {
  loadedSkills: readonly ResolvedLoadedSkill[];
  selection: ToolSelection;
}

/** Writes a turn-level delta (reset, declared loads, eviction, `once` unloading) into the session's state. */
export function commitToSession(session: AgentsSkillSession, delta: StateDelta): void {
  const changed = new PendingStateWrites(session.state, delta).commit();
  if (Object.keys(changed).length > 0) session.recordStateChange(changed);
}

/**
 * An agent's turn starts at its first model call in a run: the load mode's reset and the
 * declared loads land together or not at all. A handoff target starts its own turn when it first
 * runs, with its own state.
 */
function startTurn(settings: AgentStepSettings, binding: SkillRunBinding, agentName: string): Promise<void> {
  const pending = binding.turnStarts.get(agentName);
  if (pending !== undefined) return pending;
  const started = (async () => {
    const { state } = binding.session;
    // A bad declaration throws before anything is written.
    const reset = beginTurn(state, { agentName, mode: settings.loadMode });
    const declared = await applyDeclaredLoads(overlayState(state, reset), {
      agentName,
      repository: settings.repository,
      loads: binding.skillLoads?.[agentName] ?? [],
      ...(binding.skillContext !== undefined ? { skillContext: binding.skillContext } : {}),
      ...(settings.maxLoadedSkills !== undefined ? { maxLoadedSkills: settings.maxLoadedSkills } : {}),
    });
    commitToSession(binding.session, mergeDeltas(reset, declared));
  })();
  binding.turnStarts.set(agentName, started);
  return started;
}

/**
 * Prepares one model call of `agentName`: starts its turn when this is its first call of the run,
 * evicts beyond `maxLoadedSkills`, and resolves its loaded skills once for both tool selection and
 * materialisation. Called by every tool's `isEnabled` and by the input filter of the same call;
 * all but the turn start are pure reads after the first, so repeating them changes nothing.
 */
export async function prepareAgentStep(
  settings: AgentStepSettings,
  binding: SkillRunBinding,
  agentName: string,
): Promise<AgentStep> {
  await startTurn(settings, binding, agentName);
  // The tools' isEnabled calls and the input filter of one model call share one resolution; the next
  // model call resolves again, so an edited skill is seen as it would be by the AI SDK integration.
  const fingerprint = `${binding.modelCalls} ${stateFingerprint(binding.session)}`;
  const cached = binding.steps.get(agentName);
  if (cached !== undefined && cached.fingerprint === fingerprint) return cached.step as Promise<AgentStep>;
  const step = resolveStep(settings, binding, agentName);
  binding.steps.set(agentName, { fingerprint, step });
  return step;
}

function stateFingerprint(session: AgentsSkillSession): string {
  return JSON.stringify([...session.state.snapshot()]);
}

async function resolveStep(
  settings: AgentStepSettings,
  binding: SkillRunBinding,
  agentName: string,
): Promise<AgentStep> {
  const { state } = binding.session;
  commitToSession(
    binding.session,
    evictLeastRecentlyTouched(state, { agentName, maxLoadedSkills: settings.maxLoadedSkills }),
  );
  const loadedSkills = await resolveLoadedSkills(state, agentName, settings.repository, binding.skillContext);
  const selection = await selectActiveTools({
    repository: settings.repository,
    state,
    agentName,
    loadedSkills,
    skillToolNames: settings.skillToolNames,
    poolToolNames: settings.poolToolNames,
    ...(binding.skillContext !== undefined ? { skillContext: binding.skillContext } : {}),
    ...(settings.enforceAllowedTools ? { enforceAllowedTools: true } : {}),
    ...(settings.allowedToolAliases ? { allowedToolAliases: settings.allowedToolAliases } : {}),
  });
  return { loadedSkills, selection };
}
