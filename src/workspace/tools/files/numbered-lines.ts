/** Longest line shown whole; longer ones are cut, saying so. Keeps one minified line from filling the reply. */
export const maxShownLineLength = 2000;

/**
 * Lines `offset`.. of `text`, each prefixed with its number and a tab, as `cat -n` prints them:
 * the shape models read files in, and the one the edit tool's messages point back to.
 */
export function numberedLines(
  text: string,
  offset: number,
  limit: number,
): { text: string; firstLine: number; lastLine: number; totalLines: number } {
  const lines = text.split('\n');
  // A final newline ends the last line; it does not start another.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const first = Math.max(1, offset);
  const shown = lines.slice(first - 1, first - 1 + limit).map((line, index) => {
    const cut =
      line.length > maxShownLineLength
        ? `${line.slice(0, maxShownLineLength)}... [line cut: ${line.length} characters]`
        : line;
    return `${String(first + index).padStart(6)}\t${cut}`;
  });
  return { text: shown.join('\n'), firstLine: first, lastLine: first + shown.length - 1, totalLines: lines.length };
}
