/** Whether a value is a mapping (what YAML and JSON give for `{…}`), not null, an array or a scalar. */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
