/**
 * A read/write view of one session's state (string keys and string values).
 * Writes are recorded as deltas; `null` deletes a key. Tools never touch a store directly, so a
 * tool call that fails leaves no trace: the caller applies the deltas only on success.
 */
export interface StateView {
  get(key: string): string | undefined;
  set(key: string, value: string | null): void;
  /** Keys currently present (after pending writes), in insertion order. */
  keys(): string[];
}
