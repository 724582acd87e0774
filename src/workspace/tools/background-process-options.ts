/**
 * Limits on the background processes of `workspace_exec` with `background: true`
 * (docs/long-running-commands.md), per session.
 */
export interface BackgroundProcessOptions {
  /** Most background processes one session may run at once; default 4. */
  maxConcurrent?: number;
  /**
   * Longest a background process may live, in seconds: it and everything it started are killed
   * then. A call's `timeout` asks for less; more is capped with a warning. Default 1800 s.
   */
  maxLifetimeSeconds?: number;
  /**
   * Unread output kept of stdout and of stderr each, in bytes; older unread output is dropped and
   * the next poll says how many bytes. Default 64 KiB.
   */
  maxBufferedOutputBytes?: number;
}

/** The limits with their defaults applied; `enabled` is true only when the option was given (`true` or limits). */
export interface ResolvedBackgroundProcessOptions {
  enabled: boolean;
  maxConcurrent: number;
  maxLifetimeSeconds: number;
  maxBufferedOutputBytes: number;
}

export const defaultBackgroundProcessOptions = {
  maxConcurrent: 4,
  maxLifetimeSeconds: 1800,
  maxBufferedOutputBytes: 64 * 1024,
} as const;

/** Longest a poll or write may wait for output before it returns (the `yield_ms` cap). */
export const maxYieldMs = 30_000;

/** Defaults applied; values were checked by the options schema. */
export function resolveBackgroundProcessOptions(
  options: BackgroundProcessOptions | boolean | undefined,
): ResolvedBackgroundProcessOptions {
  // Off unless asked for: the three process tools add about 580 tokens to every request
  // (docs/long-running-commands.md), a cost most agents should not pay for a feature they never use.
  if (options === undefined || options === false) return { enabled: false, ...defaultBackgroundProcessOptions };
  if (options === true) return { enabled: true, ...defaultBackgroundProcessOptions };
  return {
    enabled: true,
    maxConcurrent: Math.floor(options?.maxConcurrent ?? defaultBackgroundProcessOptions.maxConcurrent),
    maxLifetimeSeconds: options?.maxLifetimeSeconds ?? defaultBackgroundProcessOptions.maxLifetimeSeconds,
    maxBufferedOutputBytes: Math.floor(
      options?.maxBufferedOutputBytes ?? defaultBackgroundProcessOptions.maxBufferedOutputBytes,
    ),
  };
}
