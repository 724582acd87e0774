/**
 * The edit the model asked for, as exact-text replacement: `oldText` must occur exactly once (or
 * `replaceAll`), so an edit never lands in a place the model did not mean. Models are trained on
 * this shape (an old string and a new one); when it fails, the message shows what the file does
 * hold near what was asked, so the next attempt can copy it exactly.
 */
export type ExactEditResult =
  | { ok: true; text: string; replacements: number; firstLine: number }
  | { ok: false; message: string };

export function applyExactEdit(
  text: string,
  oldText: string,
  newText: string,
  options: { replaceAll?: boolean } = {},
): ExactEditResult {
  if (oldText === '')
    return {
      ok: false,
      message:
        'old_string is empty: give the exact text to replace (to create or overwrite a whole file, use workspace_write)',
    };
  if (oldText === newText)
    return { ok: false, message: 'old_string and new_string are the same: the edit would change nothing' };
  const starts = occurrences(text, oldText);
  if (starts.length === 0) return { ok: false, message: notFoundMessage(text, oldText) };
  if (starts.length > 1 && options.replaceAll !== true) {
    const lines = starts.slice(0, 10).map((start) => lineOf(text, start));
    return {
      ok: false,
      message: `old_string occurs ${starts.length} times (at lines ${lines.join(', ')}${starts.length > 10 ? ', ...' : ''}): add surrounding lines so it matches once, or set replace_all`,
    };
  }
  // Slices, not String.replace: a `$&` or `$1` in the new text must be written as it is.
  const parts: string[] = [];
  let from = 0;
  for (const start of starts) {
    parts.push(text.slice(from, start), newText);
    from = start + oldText.length;
  }
  parts.push(text.slice(from));
  return { ok: true, text: parts.join(''), replacements: starts.length, firstLine: lineOf(text, starts[0] as number) };
}

/** Start offsets of the non-overlapping occurrences of `needle`. */
function occurrences(text: string, needle: string): number[] {
  const starts: number[] = [];
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + needle.length))
    starts.push(index);
  return starts;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) line += 1;
  return line;
}

const squeeze = (line: string): string => line.trim().replace(/\s+/g, ' ');

/**
 * Why nothing matched, with the file's nearest lines: first a match that differs only in
 * whitespace or line ends (the commonest slip: indentation, tabs, CRLF), else the lines most like
 * the first non-blank line of `oldText`.
 */
function notFoundMessage(text: string, oldText: string): string {
  const lines = text.split('\n');
  const wanted = oldText.split('\n').map((line) => line.replace(/\r$/, ''));
  const squeezed = wanted.map(squeeze);
  for (let start = 0; start + wanted.length <= lines.length; start += 1) {
    let same = true;
    for (let offset = 0; offset < wanted.length && same; offset += 1)
      same = squeeze(lines[start + offset] as string) === squeezed[offset];
    if (same)
      return `old_string was not found exactly; lines ${start + 1}-${start + wanted.length} match it except for whitespace or line ends. Copy those lines exactly as workspace_read shows them (without the line-number prefix)`;
  }
  const probe = squeezed.find((line) => line !== '') ?? '';
  const near = lines
    .map((line, index) => ({ index, score: similarity(squeeze(line), probe) }))
    .filter((candidate) => candidate.score >= 0.5)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, 3)
    .sort((a, b) => a.index - b.index);
  if (near.length === 0)
    return 'old_string was not found in the file, and no line resembles it: read the file again (workspace_read) and copy the text exactly';
  const shown = near.map(({ index }) => `  ${index + 1}: ${abbreviate(lines[index] as string)}`).join('\n');
  return `old_string was not found in the file. The closest lines:\n${shown}\nCopy the text exactly as workspace_read shows it (without the line-number prefix)`;
}

function abbreviate(line: string): string {
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

/** Dice coefficient over character bigrams: cheap, and good at "the same line, slightly different". */
function similarity(a: string, b: string): number {
  if (a === b) return a === '' ? 0 : 1;
  if (a.length < 2 || b.length < 2) return 0;
  const counts = new Map<string, number>();
  for (let index = 0; index < a.length - 1; index += 1) {
    const pair = a.slice(index, index + 2);
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  let shared = 0;
  for (let index = 0; index < b.length - 1; index += 1) {
    const pair = b.slice(index, index + 2);
    const left = counts.get(pair) ?? 0;
    if (left > 0) {
      counts.set(pair, left - 1);
      shared += 1;
    }
  }
  return (2 * shared) / (a.length - 1 + b.length - 1);
}
