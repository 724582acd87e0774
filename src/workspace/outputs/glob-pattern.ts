import { WorkspacePathError } from '../errors.js';

/**
 * Workspace globs, compiled to a matcher of our own instead of a regular expression.
 *
 * Why not picomatch / minimatch (or the regex this file used to build): both compile a glob to a
 * backtracking regular expression, and `out/*a*a*a*a*a*a*a*a*a*b` against a long name then takes
 * time growing like name length to the power of the star count. The pattern comes from the model
 * and the names from the sandboxed process, and matching runs on the event loop every session
 * shares, so one tool call could stop them all. Here:
 *
 * - braces are expanded first, to at most `maxGlobAlternatives` patterns (refused beyond: the
 *   `braces` package expands `{a,b}{a,b}…` to 2^n strings before anyone can count them);
 * - within a segment, `*` is matched greedily and only ever resumes from the latest `*` (a
 *   star-free token matches exactly one character, so the latest star can absorb whatever an
 *   earlier one could), which is at most |segment pattern| × |name| steps, never exponential;
 * - across segments `**` is matched the same way, segment by segment, remembering each
 *   (pattern segment, name segment) result, so no pair is matched twice;
 * - every step is charged to a `MatchBudget`, which the caller sizes for a whole collection.
 *
 * Syntax, as bash with `dotglob` and `globstar`: `*` and `?` within one segment, `**` as a whole
 * segment for any number of segments (zero included), `[abc]`, `[!a-z]`, `[^…]` and `[[:digit:]]`
 * classes, nested `{a,{b,c}}` and `{a,b/c}` alternatives, `\` escaping the next character. A trailing
 * `/` names folders: `out/*\/` collects every file below each folder of `out/`. Hidden files match
 * like any other.
 */
export interface GlobPattern {
  /** The leading segments without wildcards: the folder the walk starts from ('' for the root). */
  base: string;
  /** True when the pattern has wildcards or alternatives; a plain path names exactly one file or folder. */
  hasWildcards: boolean;
  /** Whether a `/`-separated path relative to the root matches; work is charged to `budget`. */
  matches(relativePath: string, budget?: MatchBudget): boolean;
  /** Upper bound on how deep below `base` a match can be; Infinity with `**`. */
  maxDepth: number;
}

/** Longest pattern accepted, in characters (a path is at most 4096 bytes on Linux). */
export const maxGlobPatternLength = 1024;
/** Patterns one glob may expand to through its `{…}` alternatives. */
export const maxGlobAlternatives = 256;

/** Matching steps left; shared by every match of one collection so its total work is bounded. */
export class MatchBudget {
  remaining: number;
  constructor(steps: number) {
    this.remaining = steps;
  }
  get exhausted(): boolean {
    return this.remaining <= 0;
  }
}

/** Steps a match may take when the caller gives no budget: far beyond any honest pattern and path. */
const unboundedCallSteps = 10_000_000;

type Token =
  | { kind: 'star' }
  | { kind: 'any' }
  | { kind: 'literal'; codePoint: number }
  | { kind: 'class'; negated: boolean; ranges: Array<[number, number]>; named: Array<(codePoint: number) => boolean> };

type Segment = { kind: 'globstar' } | { kind: 'tokens'; tokens: Token[]; literal: string | undefined };

/** Throws WorkspacePathError naming the pattern when it cannot be compiled (too long, a class like `[z-a]`, too many alternatives). */
export function compileGlob(pattern: string): GlobPattern {
  if (pattern.length > maxGlobPatternLength)
    throw new WorkspacePathError(
      abbreviate(pattern),
      `not a valid glob: longer than ${maxGlobPatternLength} characters`,
    );
  const alternatives = expandBraces(pattern).map((alternative) => parseSegments(alternative, pattern));
  const baseSegments: string[] = [];
  for (let index = 0; ; index += 1) {
    const first = alternatives[0]?.[index];
    // The last segment of a plain path is part of the base; of a pattern only when every alternative agrees.
    if (first === undefined || first.kind !== 'tokens' || first.literal === undefined) break;
    if (
      !alternatives.every((segments) => {
        const segment = segments[index];
        return (
          segment !== undefined &&
          segment.kind === 'tokens' &&
          segment.literal === first.literal &&
          (alternatives.length === 1 || index < segments.length - 1)
        );
      })
    )
      break;
    baseSegments.push(first.literal);
  }
  const hasWildcards = alternatives.length > 1 || (alternatives[0] ?? []).length > baseSegments.length;
  const maxDepth = Math.max(
    0,
    ...alternatives.map((segments) =>
      segments.some((segment) => segment.kind === 'globstar') ? Infinity : segments.length - baseSegments.length,
    ),
  );
  return {
    base: baseSegments.join('/'),
    hasWildcards,
    maxDepth,
    matches(relativePath, budget = new MatchBudget(unboundedCallSteps)) {
      const names = relativePath.split('/').filter((name) => name !== '');
      const characters: Array<number[] | undefined> = [];
      const charactersOf = (index: number): number[] => (characters[index] ??= codePoints(names[index] as string));
      return alternatives.some(
        (segments) => !budget.exhausted && matchPath(segments, names.length, charactersOf, budget),
      );
    },
  };
}

/** `segments` against the path's names; `**` resumes only from the latest globstar, as `*` in a segment. */
function matchPath(
  segments: readonly Segment[],
  nameCount: number,
  charactersOf: (index: number) => number[],
  budget: MatchBudget,
): boolean {
  if (!segments.some((segment) => segment.kind === 'globstar')) {
    // Without `**` segment i can only meet name i: no resuming, nothing to remember.
    if (segments.length !== nameCount) return false;
    for (let index = nameCount - 1; index >= 0; index -= 1) {
      if (!matchSegment((segments[index] as Extract<Segment, { kind: 'tokens' }>).tokens, charactersOf(index), budget))
        return false;
    }
    return true;
  }
  // 0 unknown, 1 match, 2 no match; for each (pattern segment, name) pair.
  const known = new Uint8Array(segments.length * nameCount);
  const segmentMatches = (segmentIndex: number, nameIndex: number): boolean => {
    const key = segmentIndex * nameCount + nameIndex;
    if (known[key] === 0)
      known[key] = matchSegment(
        (segments[segmentIndex] as Extract<Segment, { kind: 'tokens' }>).tokens,
        charactersOf(nameIndex),
        budget,
      )
        ? 1
        : 2;
    return known[key] === 1;
  };
  let segment = 0;
  let name = 0;
  let resumeSegment = -1;
  let resumeName = 0;
  while (name < nameCount) {
    if (budget.exhausted) return false;
    budget.remaining -= 1;
    const current = segments[segment];
    if (current?.kind === 'globstar') {
      resumeSegment = segment;
      resumeName = name;
      segment += 1;
    } else if (current !== undefined && segmentMatches(segment, name)) {
      segment += 1;
      name += 1;
    } else if (resumeSegment >= 0) {
      resumeName += 1;
      name = resumeName;
      segment = resumeSegment + 1;
    } else {
      return false;
    }
  }
  while (segments[segment]?.kind === 'globstar') segment += 1;
  return segment === segments.length;
}

/** One segment's tokens against one name: greedy `*`, resuming only from the latest one. */
function matchSegment(tokens: readonly Token[], name: readonly number[], budget: MatchBudget): boolean {
  let token = 0;
  let position = 0;
  let resumeToken = -1;
  let resumePosition = 0;
  while (position < name.length) {
    budget.remaining -= 1;
    if (budget.remaining <= 0) return false;
    const current = tokens[token];
    if (current?.kind === 'star') {
      resumeToken = token;
      resumePosition = position;
      token += 1;
    } else if (current !== undefined && tokenMatches(current, name[position] as number)) {
      token += 1;
      position += 1;
    } else if (resumeToken >= 0) {
      resumePosition += 1;
      position = resumePosition;
      token = resumeToken + 1;
    } else {
      return false;
    }
  }
  while (tokens[token]?.kind === 'star') token += 1;
  return token === tokens.length;
}

function tokenMatches(token: Exclude<Token, { kind: 'star' }>, codePoint: number): boolean {
  if (token.kind === 'any') return true;
  if (token.kind === 'literal') return token.codePoint === codePoint;
  const inside =
    token.ranges.some(([low, high]) => codePoint >= low && codePoint <= high) ||
    token.named.some((test) => test(codePoint));
  return inside !== token.negated;
}

/**
 * Where the class starting at `start` (a `[`) ends: the index of its `]`, or -1 when it does not
 * close (then `[` is an ordinary character). A `]` right after `[` or `[!` is a member, `\` escapes,
 * and `[:name:]` is one member.
 */
function classEnd(text: string, start: number): number {
  let index = start + 1;
  if (text[index] === '!' || text[index] === '^') index += 1;
  if (text[index] === ']') index += 1;
  while (index < text.length) {
    const character = text[index];
    if (character === ']') return index;
    if (character === '\\') index += 2;
    else if (character === '[' && text[index + 1] === ':') {
      const close = text.indexOf(':]', index + 2);
      index = close === -1 ? index + 1 : close + 2;
    } else index += 1;
  }
  return -1;
}

type BracePart = string | BracePart[][];

/** Expands `{a,b}` alternatives (nested, spanning `/`) into plain patterns, refusing more than the cap. */
function expandBraces(pattern: string): string[] {
  const tooMany = (): never => {
    throw new WorkspacePathError(
      abbreviate(pattern),
      `not a valid glob: its {…} alternatives expand to more than ${maxGlobAlternatives} alternatives; use fewer or a wildcard`,
    );
  };
  const expand = (parts: readonly BracePart[]): string[] => {
    let results = [''];
    for (const part of parts) {
      if (typeof part === 'string') {
        results = results.map((result) => result + part);
        continue;
      }
      // Counted while they are made, so a refused pattern never builds more than the cap.
      const options: string[] = [];
      for (const option of part) {
        for (const expanded of expand(option)) {
          options.push(expanded);
          if (options.length * results.length > maxGlobAlternatives) tooMany();
        }
      }
      results = results.flatMap((result) => options.map((option) => result + option));
    }
    return results;
  };
  return expand(parseBraces(pattern, 0, false, new Map()).parts);
}

interface ParsedBraces {
  parts: BracePart[];
  /** Index of the `,` or `}` that ended a nested parse, or the text's length. */
  end: number;
}

/**
 * Parses from `start` until the end, or (inside braces) an unmatched `,` or `}`. A `{` whose `}` is
 * missing, or that holds no top-level comma, is an ordinary character, as in bash. Nested parses
 * are remembered by start: a run of unclosed `{` would otherwise be re-parsed exponentially often.
 */
function parseBraces(text: string, start: number, nested: boolean, known: Map<number, ParsedBraces>): ParsedBraces {
  const remembered = nested ? known.get(start) : undefined;
  if (remembered !== undefined) return remembered;
  const parts: BracePart[] = [];
  let literal = '';
  let index = start;
  const flush = (): void => {
    if (literal !== '') parts.push(literal);
    literal = '';
  };
  while (index < text.length) {
    const character = text[index] as string;
    if (nested && (character === ',' || character === '}')) break;
    if (character === '\\') {
      literal += text.slice(index, index + 2);
      index += 2;
    } else if (character === '[') {
      const close = classEnd(text, index);
      const end = close === -1 ? index + 1 : close + 1;
      literal += text.slice(index, end);
      index = end;
    } else if (character === '{') {
      const options: BracePart[][] = [];
      let cursor = index + 1;
      let closed = false;
      for (;;) {
        const option = parseBraces(text, cursor, true, known);
        options.push(option.parts);
        if (option.end >= text.length) break;
        cursor = option.end + 1;
        if (text[option.end] === '}') {
          closed = true;
          break;
        }
      }
      flush();
      if (closed && options.length > 1) {
        parts.push(options);
        index = cursor;
      } else if (closed) {
        // `{a}`: the braces are characters, what is inside may still hold alternatives.
        parts.push('\\{', ...(options[0] as BracePart[]), '\\}');
        index = cursor;
      } else {
        parts.push('\\{');
        index += 1;
      }
    } else {
      literal += character;
      index += 1;
    }
  }
  flush();
  const parsed = { parts, end: index };
  if (nested) known.set(start, parsed);
  return parsed;
}

/** Splits one brace-free pattern into segments; a trailing `/` adds `**` (every file below). */
function parseSegments(alternative: string, pattern: string): Segment[] {
  const raw: string[] = [];
  let current = '';
  for (let index = 0; index < alternative.length; ) {
    const character = alternative[index] as string;
    if (character === '/') {
      raw.push(current);
      current = '';
      index += 1;
    } else if (character === '\\') {
      current += alternative.slice(index, index + 2);
      index += 2;
    } else if (character === '[') {
      const close = classEnd(alternative, index);
      const end = close === -1 ? index + 1 : close + 1;
      current += alternative.slice(index, end);
      index = end;
    } else {
      current += character;
      index += 1;
    }
  }
  raw.push(current);
  const trailingSlash = raw.length > 1 && raw.at(-1) === '';
  const segments = raw
    .filter((segment) => segment !== '' && segment !== '.')
    .map((segment): Segment => (segment === '**' ? { kind: 'globstar' } : parseTokens(segment, pattern)));
  if (trailingSlash) segments.push({ kind: 'globstar' });
  // `dir/**` and `dir/` mean what is below `dir`: at least one segment, so `dir` itself is no match.
  if (segments.at(-1)?.kind === 'globstar')
    segments.splice(-1, 0, { kind: 'tokens', tokens: [{ kind: 'star' }], literal: undefined });
  return segments;
}

function parseTokens(segment: string, pattern: string): Segment {
  const tokens: Token[] = [];
  for (let index = 0; index < segment.length; ) {
    const character = segment[index] as string;
    if (character === '*') {
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
      index += 1;
    } else if (character === '?') {
      tokens.push({ kind: 'any' });
      index += 1;
    } else if (character === '[' && classEnd(segment, index) !== -1) {
      const close = classEnd(segment, index);
      tokens.push(parseClass(segment.slice(index + 1, close), pattern));
      index = close + 1;
    } else {
      // `\x` is x; a lone trailing backslash stands for itself.
      if (character === '\\' && index + 1 < segment.length) index += 1;
      const codePoint = segment.codePointAt(index) as number;
      tokens.push({ kind: 'literal', codePoint });
      index += codePoint > 0xffff ? 2 : 1;
    }
  }
  const literal = tokens.every((token) => token.kind === 'literal')
    ? String.fromCodePoint(...tokens.map((token) => (token as Extract<Token, { kind: 'literal' }>).codePoint))
    : undefined;
  return { kind: 'tokens', tokens, literal };
}

const namedClasses: Record<string, (codePoint: number) => boolean> = {
  alnum: (c) => isDigit(c) || isAlpha(c),
  alpha: (c) => isAlpha(c),
  ascii: (c) => c < 0x80,
  blank: (c) => c === 0x20 || c === 0x09,
  cntrl: (c) => c < 0x20 || c === 0x7f,
  digit: (c) => isDigit(c),
  graph: (c) => c > 0x20 && c < 0x7f,
  lower: (c) => c >= 0x61 && c <= 0x7a,
  print: (c) => c >= 0x20 && c < 0x7f,
  punct: (c) => c > 0x20 && c < 0x7f && !isDigit(c) && !isAlpha(c),
  space: (c) => c === 0x20 || (c >= 0x09 && c <= 0x0d),
  upper: (c) => c >= 0x41 && c <= 0x5a,
  word: (c) => isDigit(c) || isAlpha(c) || c === 0x5f,
  xdigit: (c) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66),
};

function isDigit(codePoint: number): boolean {
  return codePoint >= 0x30 && codePoint <= 0x39;
}

function isAlpha(codePoint: number): boolean {
  return (codePoint >= 0x41 && codePoint <= 0x5a) || (codePoint >= 0x61 && codePoint <= 0x7a);
}

/** The inside of `[…]`: members, `a-z` ranges, `[:name:]` classes, `\` escapes. */
function parseClass(body: string, pattern: string): Token {
  const negated = body[0] === '!' || body[0] === '^';
  const ranges: Array<[number, number]> = [];
  const named: Array<(codePoint: number) => boolean> = [];
  /** The member at `index` (an escape stands for the next character) and where the next starts. */
  const member = (index: number): { codePoint: number; next: number } => {
    if (body[index] === '\\' && index + 1 < body.length) index += 1;
    const codePoint = body.codePointAt(index) as number;
    return { codePoint, next: index + (codePoint > 0xffff ? 2 : 1) };
  };
  for (let index = negated ? 1 : 0; index < body.length; ) {
    if (body.startsWith('[:', index)) {
      const close = body.indexOf(':]', index + 2);
      if (close !== -1) {
        const name = body.slice(index + 2, close);
        const test = namedClasses[name];
        if (test === undefined)
          throw new WorkspacePathError(abbreviate(pattern), `not a valid glob: unknown character class [:${name}:]`);
        named.push(test);
        index = close + 2;
        continue;
      }
    }
    const low = member(index);
    if (body[low.next] === '-' && low.next + 1 < body.length) {
      const high = member(low.next + 1);
      if (low.codePoint > high.codePoint) {
        throw new WorkspacePathError(
          abbreviate(pattern),
          `not a valid glob: range ${String.fromCodePoint(low.codePoint)}-${String.fromCodePoint(high.codePoint)} is out of order; check its [...] classes`,
        );
      }
      ranges.push([low.codePoint, high.codePoint]);
      index = high.next;
    } else {
      ranges.push([low.codePoint, low.codePoint]);
      index = low.next;
    }
  }
  return { kind: 'class', negated, ranges, named };
}

function codePoints(text: string): number[] {
  const result: number[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const codePoint = text.codePointAt(index) as number;
    if (codePoint > 0xffff) index += 1;
    result.push(codePoint);
  }
  return result;
}

function abbreviate(pattern: string): string {
  return pattern.length > 120 ? `${pattern.slice(0, 117)}...` : pattern;
}

/** `text` as a glob matching exactly itself: every character the syntax above gives a meaning is escaped. */
export function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]{}]/g, '\\$&');
}
