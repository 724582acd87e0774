import { mergeDeltas, overlayState, type StateDelta, type StateReader } from '../state/state-delta.js';
import { docsKey, loadedKey, loadedOrderKey, selectAll, toolsKey } from '../state/state-keys.js';
import { formatLoadedOrder, parseLoadedOrder, touchLoadedOrder } from './loaded-order.js';
import { readLoadedSkillNamesInTouchOrder } from './loaded-skills.js';
import {
  formatSelection,
  nextSelection,
  parseSelection,
  type Selection,
  type SelectionChange,
  uniqueItems,
} from './selection.js';

/*
 * The transitions a model's tool call (or a caller) makes on one agent's disclosure state. Inputs
 * are assumed valid (the tools validate names against the repository first); each function only
 * computes the delta.
 */

/** Input of `loadSkill`: which agent loads which skill, the docs it selects, and the cap on loaded skills. */
export interface LoadSkillEvent {
  agentName: string;
  skill: string;
  /** Docs to select; a non-empty list replaces the current selection. */
  docs?: readonly string[];
  /** Select every doc. */
  includeAllDocs?: boolean;
  /** Keep at most this many loaded skills (the most recently touched); undefined = no limit. */
  maxLoadedSkills?: number;
}

/**
 * Loads a skill: marks it loaded, touches it, and sets the docs when some are given. Neither docs
 * nor includeAllDocs leaves the previous doc selection as it is (a re-load does not forget the docs
 * picked earlier), and the tool selection is never changed by a load (a missing tool selection
 * already means "all tools of the skill").
 */
export function loadSkill(state: StateReader, event: LoadSkillEvent): StateDelta {
  const delta: StateDelta = { [loadedKey(event.agentName, event.skill)]: '1' };
  const docs = uniqueItems(event.docs ?? []);
  if (event.includeAllDocs) delta[docsKey(event.agentName, event.skill)] = selectAll;
  else if (docs.length > 0) delta[docsKey(event.agentName, event.skill)] = formatSelection(docs);
  // A load selects every tool of the skill's Tools: section, even after skill_select_tools narrowed
  // it: an absent key means all, so only a narrowed selection needs clearing.
  if (state.get(toolsKey(event.agentName, event.skill)) !== undefined)
    delta[toolsKey(event.agentName, event.skill)] = null;
  Object.assign(delta, touchSkills(state, event.agentName, [event.skill]));
  return mergeDeltas(delta, evictLeastRecentlyTouched(overlayState(state, delta), event));
}

/** Input of `selectDocs` / `selectTools`: which agent changes the selection of which loaded skill, and how. */
export interface SelectEvent extends SelectionChange {
  agentName: string;
  skill: string;
}

/** The delta of a selection change and the selection it leads to. */
export interface SelectResult {
  selection: Selection;
  delta: StateDelta;
}

function select(state: StateReader, key: string, event: SelectEvent): SelectResult {
  const selection = nextSelection(parseSelection(state.get(key)), event);
  return {
    selection,
    delta: { [key]: formatSelection(selection), ...touchSkills(state, event.agentName, [event.skill]) },
  };
}

/** Changes a loaded skill's doc selection and touches it. */
export function selectDocs(state: StateReader, event: SelectEvent): SelectResult {
  return select(state, docsKey(event.agentName, event.skill), event);
}

/** Changes a loaded skill's tool selection and touches it. */
export function selectTools(state: StateReader, event: SelectEvent): SelectResult {
  return select(state, toolsKey(event.agentName, event.skill), event);
}

/** Moves the skills to the most recent end of the agent's touch order. */
export function touchSkills(state: StateReader, agentName: string, skills: readonly string[]): StateDelta {
  const order = parseLoadedOrder(state.get(loadedOrderKey(agentName)));
  return { [loadedOrderKey(agentName)]: formatLoadedOrder(touchLoadedOrder(order, ...skills)) };
}

/** Every key of one loaded skill, deleted. */
export function unloadSkillDelta(agentName: string, skill: string): StateDelta {
  return { [loadedKey(agentName, skill)]: null, [docsKey(agentName, skill)]: null, [toolsKey(agentName, skill)]: null };
}

/**
 * Keeps the `maxLoadedSkills` most recently touched skills and unloads the rest (their loaded, docs
 * and tools keys), rewriting the order as the kept names. No limit, or within it: no change.
 */
export function evictLeastRecentlyTouched(
  state: StateReader,
  options: { agentName: string; maxLoadedSkills?: number | undefined },
): StateDelta {
  const limit = options.maxLoadedSkills;
  if (limit === undefined || limit <= 0) return {};
  const names = readLoadedSkillNamesInTouchOrder(state, options.agentName);
  if (names.length <= limit) return {};
  const kept = names.slice(names.length - limit);
  const delta: StateDelta = {};
  for (const name of names.slice(0, names.length - limit))
    Object.assign(delta, unloadSkillDelta(options.agentName, name));
  delta[loadedOrderKey(options.agentName)] = formatLoadedOrder(kept);
  return delta;
}
