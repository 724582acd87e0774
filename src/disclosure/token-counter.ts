import { createRequire } from 'node:module';
import type { encode as Encode } from 'gpt-tokenizer/encoding/o200k_base';

/** The encoding every token figure in skillbox uses (GPT-4o / o-series); it ships with gpt-tokenizer, so no network. */
export const tokenizerName = 'o200k_base';

/**
 * o200k_base's pre-token pattern, as the encoding defines it (the same one the tokenizer splits
 * with): 'u' for the \p classes, 'g' to walk a text. The counter below splits text with it, so it
 * must split exactly as the tokenizer does; token-counter.test.ts checks that a text's count is the
 * sum of its pre-tokens' counts.
 */
const contraction = "(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?";
const preTokenSource = [
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+${contraction}`,
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*${contraction}`,
  String.raw`\p{N}{1,3}`,
  String.raw` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
  String.raw`\s*[\r\n]+`,
  String.raw`\s+(?!\S)`,
  String.raw`\s+`,
].join('|');
const preTokenPattern = new RegExp(preTokenSource, 'ug');

/** Special-token text in a skill (`<|endoftext|>`) is ordinary text to count, not a reason to throw. */
const ordinaryText = { disallowedSpecial: new Set<string>() };

/**
 * Pre-tokens longer than this are counted in chunks of this many characters. The byte-pair merge is
 * still quadratic in the length of one pre-token (measured with gpt-tokenizer 4.0: 16,000 repeated
 * letters 0.5 s, 32,000 2 s, 64,000 7 s), and a run without spaces (a line of `=`, base64 without
 * breaks) is one pre-token. A chunk edge can add a token the whole piece would not have, so counts
 * of such text are an upper bound (at most one token per chunk too many). No pre-token in the shared
 * corpus comes near this length (the longest has 330 characters), so real skills are counted exactly.
 */
export const maxEncodedPieceCharacters = 1024;

/** A run this long of non-space or of space characters may hold a pre-token over the chunk size. */
const longRun = new RegExp(`\\S{${maxEncodedPieceCharacters + 1}}|\\s{${maxEncodedPieceCharacters + 1}}`);

const require = createRequire(import.meta.url);
let encode: typeof Encode | undefined;

/**
 * Loading the ranks takes a second or two, so it happens on the first count, once per process, and
 * never for a user who counts nothing. `require` keeps the first count synchronous, so a catalog
 * budget can be checked without making rendering async.
 */
function encodedLength(text: string): number {
  encode ??= (require('gpt-tokenizer/encoding/o200k_base') as { encode: typeof Encode }).encode;
  return encode(text, ordinaryText).length;
}

/** Counts one long pre-token in chunks, never splitting a surrogate pair. */
function countLongPiece(piece: string): number {
  let total = 0;
  for (let start = 0; start < piece.length; ) {
    let end = Math.min(piece.length, start + maxEncodedPieceCharacters);
    const last = piece.charCodeAt(end - 1);
    if (end < piece.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    total += encodedLength(piece.slice(start, end));
    start = end;
  }
  return total;
}

/**
 * Number of o200k_base tokens in `text`. Special-token text in a skill counts as ordinary text.
 * Exact, except for pre-tokens over `maxEncodedPieceCharacters` (see there), which give an upper bound.
 *
 * Never more than the text's UTF-8 byte length: the encoding merges byte pairs, so every token
 * stands for at least one byte; special-token text is encoded byte by byte like any other; and a
 * long pre-token is cut into chunks only between code points, so the chunks' bytes add up to the
 * piece's. The catalog budget relies on this to accept a small catalog without loading the ranks
 * (catalog-budget-search.ts); token-counter.test.ts checks it.
 */
export function countTokens(text: string): number {
  if (text === '') return 0;
  if (!longRun.test(text)) return encodedLength(text);
  let total = 0;
  let pending = '';
  for (const match of text.matchAll(preTokenPattern)) {
    const piece = match[0];
    if (piece.length <= maxEncodedPieceCharacters) {
      pending += piece;
      continue;
    }
    if (pending !== '') total += encodedLength(pending);
    pending = '';
    total += countLongPiece(piece);
  }
  return pending === '' ? total : total + encodedLength(pending);
}

/** Counts many overlapping texts (catalog variants), each distinct piece of text counted once. */
export interface TokenCounter {
  /**
   * The exact o200k_base count of `text` (or of the concatenation of `parts`, which need not be
   * joined), as `countTokens` gives it. With `limit`, counting stops as soon as the count passes the
   * limit, and the result is then some number above `limit`.
   */
  count(text: string | readonly string[], limit?: number): number;
}

/**
 * Whether a line break just before `text[index]` must end a pre-token: the only o200k pre-tokens
 * that hold a line break are whitespace runs and punctuation runs; the former may go on over
 * whitespace, the latter over line breaks and `/`, and nothing else goes on past a line break.
 */
function endsPreTokenBefore(text: string, index: number): boolean {
  const next = text[index];
  return next !== undefined && next !== '/' && !/\s/.test(next);
}

/**
 * Pre-token counts shared by every counter in the process: the same words recur in every catalog a
 * process renders (an agent renders one per model call). Bounded so that an unusual stream of text
 * cannot grow it without end; when full it starts over.
 */
const pieceCounts = new Map<string, number>();
const maxRememberedPieces = 100_000;

function countPieces(text: string): number {
  let total = 0;
  for (const match of text.matchAll(preTokenPattern)) {
    const piece = match[0];
    let count = pieceCounts.get(piece);
    if (count === undefined) {
      count = countTokens(piece);
      if (pieceCounts.size >= maxRememberedPieces) pieceCounts.clear();
      pieceCounts.set(piece, count);
    }
    total += count;
  }
  return total;
}

/**
 * A `TokenCounter` whose counts are exact by construction, not estimates. The encoder splits text
 * into pre-tokens with a regular expression that looks neither back nor (past whitespace) ahead, and
 * encodes each pre-token on its own; a text's count is therefore the sum of its pre-tokens' counts,
 * and a pre-token counted alone splits into itself. The counter remembers the count of every
 * pre-token (shared by the process) and of every part and line it was given (cut only where a line
 * break must end a pre-token, see `endsPreTokenBefore`), so a text that differs from an earlier one
 * in a few lines costs those lines. That memory grows with the distinct text counted: make one
 * counter per job, not one per process.
 */
export function createTokenCounter(): TokenCounter {
  const remembered = new Map<string, number>();

  const countLine = (line: string): number => {
    let count = remembered.get(line);
    if (count === undefined) {
      count = countPieces(line);
      remembered.set(line, count);
    }
    return count;
  };

  /** A text that starts where a pre-token starts and ends where one ends; remembered whole and by line. */
  const countSegment = (segment: string, limit: number): number => {
    const known = remembered.get(segment);
    if (known !== undefined) return known;
    let total = 0;
    let start = 0;
    for (
      let newline = segment.indexOf('\n');
      newline !== -1 && total <= limit;
      newline = segment.indexOf('\n', newline + 1)
    ) {
      if (!endsPreTokenBefore(segment, newline + 1)) continue;
      total += countLine(segment.slice(start, newline + 1));
      start = newline + 1;
    }
    if (total > limit) return total;
    if (start < segment.length) total += countLine(segment.slice(start));
    remembered.set(segment, total);
    return total;
  };

  return {
    count(text: string | readonly string[], limit = Number.POSITIVE_INFINITY): number {
      const parts = typeof text === 'string' ? [text] : text;
      let total = 0;
      // Parts are counted apart only where the text between them must split into pre-tokens anyway.
      let pending = '';
      for (let index = 0; index < parts.length && total <= limit; index += 1) {
        pending += parts[index]!;
        const next = parts[index + 1];
        if (next !== undefined && !(pending.endsWith('\n') && endsPreTokenBefore(next, 0))) continue;
        total += countSegment(pending, limit - total);
        pending = '';
      }
      return total;
    },
  };
}
