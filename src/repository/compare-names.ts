/**
 * Orders by UTF-16 code units rather than locale, so a catalog sorts the same on every machine and
 * prompts stay byte-identical.
 */
export function compareNames(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
