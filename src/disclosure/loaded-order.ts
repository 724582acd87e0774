import { uniqueItems } from './selection.js';

/**
 * The touch order of an agent's loaded skills: a JSON array of unique names, oldest touch first.
 * Eviction keeps the end of this list.
 */

export function parseLoadedOrder(value: string | undefined): string[] {
  if (value === undefined || value === '') return [];
  try {
    const parsed: unknown = JSON.parse(value);
    if (!Array.isArray(parsed)) return [];
    return uniqueItems(parsed.filter((item): item is string => typeof item === 'string'));
  } catch {
    return [];
  }
}

/** Moves each named skill to the end (most recent), in the order given; blank names are ignored. */
export function touchLoadedOrder(order: readonly string[], ...names: string[]): string[] {
  const result = [...order];
  for (const raw of names) {
    const name = raw.trim();
    if (name === '') continue;
    const index = result.indexOf(name);
    if (index !== -1) result.splice(index, 1);
    result.push(name);
  }
  return result;
}

export function formatLoadedOrder(order: readonly string[]): string {
  return JSON.stringify(order);
}
