import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * Opaque pagination cursors over a name-sorted list: the cursor holds the last name of the page
 * (not an offset), so a skill added or removed between two pages neither repeats nor skips the
 * others.
 */
export function encodeListCursor(lastName: string): string {
  return Buffer.from(JSON.stringify({ after: lastName }), 'utf8').toString('base64url');
}

/** The name a cursor continues after; a cursor this server did not make is -32602. */
export function decodeListCursor(cursor: string): string {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof value === 'object' && value !== null && typeof (value as { after?: unknown }).after === 'string')
      return (value as { after: string }).after;
  } catch {
    // Falls through to the error below: any undecodable cursor is the same mistake.
  }
  throw new McpError(
    ErrorCode.InvalidParams,
    `Invalid cursor ${JSON.stringify(cursor)}: pass a nextCursor this server returned`,
  );
}

/** One page of `items` (sorted by `nameOf`) after the cursor's name, and the cursor of the next page. */
export function pageAfter<Item>(
  items: readonly Item[],
  nameOf: (item: Item) => string,
  cursor: string | undefined,
  pageSize: number,
): { page: Item[]; nextCursor?: string } {
  const after = cursor === undefined ? undefined : decodeListCursor(cursor);
  const start = after === undefined ? 0 : items.findIndex((item) => nameOf(item) > after);
  const from = start === -1 ? items.length : start;
  const page = items.slice(from, from + pageSize);
  const last = page.at(-1);
  return from + pageSize < items.length && last !== undefined
    ? { page, nextCursor: encodeListCursor(nameOf(last)) }
    : { page };
}
