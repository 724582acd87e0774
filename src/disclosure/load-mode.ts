// Plain checks, not a zod schema: `skillbox/disclosure` loads no third-party module (docs/architecture.md).
import { throwConfigError } from '../config/option-problems.js';

/**
 * How long loaded skills stay in the requests:
 * - `turn` (default): until the next turn starts (the next user message);
 * - `once`: for the next model request only;
 * - `session`: until they are evicted or the session ends.
 */
export type LoadMode = 'turn' | 'once' | 'session';

export const loadModes: readonly LoadMode[] = ['turn', 'once', 'session'];

export const defaultLoadMode: LoadMode = 'turn';

/**
 * Validates a configured mode; an unknown mode is a configuration error, not a silent `turn`.
 * `component` names the caller's factory or function in the error.
 */
export function parseLoadMode(value: unknown, field: string, component: string): LoadMode {
  if (value === undefined) return defaultLoadMode;
  if (typeof value === 'string' && (loadModes as readonly string[]).includes(value)) return value as LoadMode;
  return throwConfigError(
    component,
    field,
    `must be one of ${loadModes.map((mode) => JSON.stringify(mode)).join(', ')}; got ${JSON.stringify(value)}`,
  );
}

/** Validates `maxLoadedSkills`: undefined or 0 means unlimited. */
export function parseMaxLoadedSkills(value: unknown, field: string, component: string): number | undefined {
  if (value === undefined || value === 0) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  return throwConfigError(
    component,
    field,
    `must be a positive integer (0 or undefined for no limit); got ${JSON.stringify(value)}`,
  );
}
