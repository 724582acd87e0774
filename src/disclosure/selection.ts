import { selectAll } from '../state/state-keys.js';

/** A doc or tool selection: every item of the skill (`'*'`), or the listed ones in order. */
export type Selection = typeof selectAll | string[];

export type SelectionMode = 'add' | 'replace' | 'clear';

export const selectionModes: readonly SelectionMode[] = ['add', 'replace', 'clear'];

/**
 * Reads a stored selection. A value that is neither `*` nor a JSON array of strings is treated as
 * no selection rather than an error: state may have been written by another implementation.
 */
export function parseSelection(value: string | undefined): Selection | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === selectAll) return selectAll;
  try {
    const parsed: unknown = JSON.parse(value);
    if (!Array.isArray(parsed)) return undefined;
    return uniqueItems(parsed.filter((item): item is string => typeof item === 'string'));
  } catch {
    return undefined;
  }
}

export function formatSelection(selection: Selection): string {
  return selection === selectAll ? selectAll : JSON.stringify(selection);
}

/** Trims items, drops empty ones and keeps the first of duplicates, in order. */
export function uniqueItems(items: readonly string[]): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const raw of items) {
    const item = raw.trim();
    if (item === '' || seen.has(item)) continue;
    seen.add(item);
    result.push(item);
  }
  return result;
}

export interface SelectionChange {
  mode: SelectionMode;
  /** Items named by the call (already validated by the caller). */
  items?: readonly string[];
  /** Select every item of the skill. */
  includeAll?: boolean;
}

/**
 * The selection after a change. `add` keeps the previous order and appends new items; adding to an
 * all-selection keeps it all (adding cannot narrow); `replace` sets the whole selection, so it is
 * how an all-selection is narrowed; `clear` empties it.
 */
export function nextSelection(previous: Selection | undefined, change: SelectionChange): Selection {
  const items = uniqueItems(change.items ?? []);
  switch (change.mode) {
    case 'clear':
      return [];
    case 'replace':
      return change.includeAll ? selectAll : items;
    case 'add':
      if (change.includeAll || previous === selectAll) return selectAll;
      return uniqueItems([...(previous ?? []), ...items]);
  }
}

/** The concrete items a selection stands for, given every item the skill has. */
export function resolveSelection(selection: Selection | undefined, available: readonly string[]): string[] {
  if (selection === undefined) return [];
  if (selection === selectAll) return [...available];
  return [...selection];
}
