import type { StateDelta, StateReader } from '../state/state-delta.js';
import { agentKeyPrefixes } from '../state/state-keys.js';
import { type LoadMode, parseLoadMode } from './load-mode.js';
import { activateLoadedSkills, clearActivations } from './skill-activation.js';

/** Deletes every disclosure key of one agent (and of no other agent, sub-agents included). */
export function clearAgentState(state: StateReader, agentName: string): StateDelta {
  const prefixes = agentKeyPrefixes(agentName);
  const delta: StateDelta = {};
  for (const key of state.keys()) {
    if (prefixes.some((prefix) => key === prefix || (prefix.endsWith('/') && key.startsWith(prefix))))
      delta[key] = null;
  }
  return delta;
}

/** The agent and load mode the turn-lifecycle functions (`beginTurn`, `afterModelRequest`) act for. */
export interface LifecycleOptions {
  agentName: string;
  mode?: LoadMode;
}

/**
 * Call when a turn starts (a new user message), before the turn's first model request. In `turn`
 * mode it unloads everything the agent loaded in earlier turns; other modes keep state. Every mode
 * ends the last turn's activations.
 */
export function beginTurn(state: StateReader, options: LifecycleOptions): StateDelta {
  const activations = clearActivations(state, options.agentName);
  return parseLoadMode(options.mode, 'mode', 'beginTurn') === 'turn'
    ? { ...activations, ...clearAgentState(state, options.agentName) }
    : activations;
}

/**
 * Call after each model request was sent. In `once` mode the request just sent showed the loaded
 * skills, so they are unloaded; they stay activated, so the model can still run what it just read
 * until the turn ends. Other modes keep state.
 */
export function afterModelRequest(state: StateReader, options: LifecycleOptions): StateDelta {
  if (parseLoadMode(options.mode, 'mode', 'afterModelRequest') !== 'once') return {};
  return { ...activateLoadedSkills(state, options.agentName), ...clearAgentState(state, options.agentName) };
}
