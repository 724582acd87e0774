import type { StateDelta, StateReader } from '../state/state-delta.js';
import { activatedKey, activatedPrefix, loadedKey } from '../state/state-keys.js';
import { loadedSkillNames } from './loaded-skills.js';

/** Marks every skill the agent has loaded now as activated for the rest of the turn. */
export function activateLoadedSkills(state: StateReader, agentName: string): StateDelta {
  const delta: StateDelta = {};
  for (const name of loadedSkillNames(state, agentName)) {
    const key = activatedKey(agentName, name);
    if (state.get(key) !== '1') delta[key] = '1';
  }
  return delta;
}

/** Removes the agent's turn activations (at the start of a turn, in every load mode). */
export function clearActivations(state: StateReader, agentName: string): StateDelta {
  const prefix = activatedPrefix(agentName);
  const delta: StateDelta = {};
  for (const key of state.keys()) if (key.startsWith(prefix)) delta[key] = null;
  return delta;
}

/** Whether the execution tools may run or stage a skill: loaded now, or loaded earlier in this turn. */
export function isSkillRunnable(state: StateReader, agentName: string, skillName: string): boolean {
  return state.get(loadedKey(agentName, skillName)) === '1' || state.get(activatedKey(agentName, skillName)) === '1';
}

/** The skills the execution tools may run or stage, sorted by name. */
export function runnableSkillNames(state: StateReader, agentName: string): string[] {
  const names = new Set(
    loadedSkillNames(state, agentName).filter((name) => state.get(loadedKey(agentName, name)) === '1'),
  );
  const prefix = activatedPrefix(agentName);
  for (const key of state.keys())
    if (key.startsWith(prefix) && state.get(key) === '1') names.add(key.slice(prefix.length));
  return [...names].sort();
}
