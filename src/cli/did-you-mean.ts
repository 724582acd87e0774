/** Edits (insert, delete, replace, swap two neighbours) that turn one word into the other. */
function editDistance(left: string, right: string): number {
  const rows = left.length + 1;
  const columns = right.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  for (let row = 1; row < rows; row += 1) {
    for (let column = 1; column < columns; column += 1) {
      const cost = left[row - 1] === right[column - 1] ? 0 : 1;
      let best = Math.min(
        table[row - 1]![column]! + 1,
        table[row]![column - 1]! + 1,
        table[row - 1]![column - 1]! + cost,
      );
      if (row > 1 && column > 1 && left[row - 1] === right[column - 2] && left[row - 2] === right[column - 1])
        best = Math.min(best, table[row - 2]![column - 2]! + 1);
      table[row]![column] = best;
    }
  }
  return table[left.length]![right.length]!;
}

/**
 * The candidate closest to what was typed, when it is close enough to be a typo (a third of its
 * length, at least two edits), or a candidate that starts with it (`--form` for `--format`).
 */
export function closestMatch(typed: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(typed.toLowerCase(), candidate.toLowerCase());
    if (best === undefined || distance < best.distance) best = { candidate, distance };
  }
  if (best !== undefined && best.distance <= Math.max(2, Math.floor(best.candidate.length / 3))) return best.candidate;
  return typed.length >= 3 ? candidates.find((candidate) => candidate.startsWith(typed)) : undefined;
}

/** " Did you mean X?" or '' when nothing is close. */
export function didYouMean(typed: string, candidates: readonly string[]): string {
  const match = closestMatch(typed, candidates);
  return match === undefined ? '' : ` Did you mean ${match}?`;
}
