import type { StateReader } from '../state/state-delta.js';
import { docsKey, loadedOrderKey, loadedPrefix, selectAll, toolsKey } from '../state/state-keys.js';
import { parseLoadedOrder } from './loaded-order.js';
import { parseSelection, type Selection } from './selection.js';

/** One loaded skill of an agent, as its state records it. */
export interface LoadedSkill {
  name: string;
  /** Selected docs: `'*'` for all, else paths in selection order (empty: none). */
  docs: Selection;
  /**
   * Selected tools of the skill's `Tools:` section: `'*'` for all (also when never narrowed), else
   * the names in order (empty: none).
   */
  tools: Selection;
}

/** Names of the agent's loaded skills, unordered (as found in state). */
export function loadedSkillNames(state: StateReader, agentName: string): string[] {
  const prefix = loadedPrefix(agentName);
  const names: string[] = [];
  for (const key of state.keys()) {
    if (!key.startsWith(prefix)) continue;
    const value = state.get(key);
    if (value === undefined || value === '') continue;
    names.push(key.slice(prefix.length));
  }
  return names;
}

/**
 * The agent's loaded skills, least recently touched first. Skills missing from the stored order
 * (state written by hand or by another implementation) come first, by name, so they are the first
 * to be evicted and the result is still deterministic.
 */
export function readLoadedSkillNamesInTouchOrder(state: StateReader, agentName: string): string[] {
  const loaded = new Set(loadedSkillNames(state, agentName));
  const order = parseLoadedOrder(state.get(loadedOrderKey(agentName))).filter((name) => loaded.has(name));
  const ordered = new Set(order);
  const unordered = [...loaded].filter((name) => !ordered.has(name)).sort();
  return [...unordered, ...order];
}

/** The agent's loaded skills with their selected docs and tools, least recently touched first. */
export function readLoadedSkills(state: StateReader, agentName: string): LoadedSkill[] {
  return readLoadedSkillNamesInTouchOrder(state, agentName).map((name) => ({
    name,
    docs: parseSelection(state.get(docsKey(agentName, name))) ?? [],
    tools: parseSelection(state.get(toolsKey(agentName, name))) ?? selectAll,
  }));
}
