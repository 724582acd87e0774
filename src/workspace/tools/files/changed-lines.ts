/**
 * A file change as a person reviews it (an approval request): one unified-diff hunk covering the
 * lines between the first and the last that differ, with up to `context` unchanged lines around.
 * One hunk, not a minimal diff: an edit by exact replacement changes one region, and a whole-file
 * write is shown whole. Capped so a huge change cannot flood the request.
 */
export function changedLines(
  path: string,
  before: string | undefined,
  after: string,
  options: { context?: number; maxLines?: number } = {},
): string {
  const context = options.context ?? 2;
  const maxLines = options.maxLines ?? 200;
  const old = before === undefined ? [] : before.split('\n');
  const next = after.split('\n');
  let head = 0;
  while (head < old.length && head < next.length && old[head] === next[head]) head += 1;
  let tail = 0;
  while (
    tail < old.length - head &&
    tail < next.length - head &&
    old[old.length - 1 - tail] === next[next.length - 1 - tail]
  )
    tail += 1;
  const from = Math.max(0, head - context);
  const oldEnd = Math.min(old.length, old.length - tail + context);
  const newEnd = Math.min(next.length, next.length - tail + context);
  const body = [
    ...old.slice(from, head).map((line) => ` ${line}`),
    ...old.slice(head, old.length - tail).map((line) => `-${line}`),
    ...next.slice(head, next.length - tail).map((line) => `+${line}`),
    ...old.slice(old.length - tail, oldEnd).map((line) => ` ${line}`),
  ];
  const header = [
    before === undefined ? '--- /dev/null' : `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -${old.length === 0 ? 0 : from + 1},${oldEnd - from} +${next.length === 0 ? 0 : from + 1},${newEnd - from} @@`,
  ];
  if (body.length <= maxLines) return [...header, ...body].join('\n');
  return [...header, ...body.slice(0, maxLines), `... ${body.length - maxLines} more lines`].join('\n');
}
