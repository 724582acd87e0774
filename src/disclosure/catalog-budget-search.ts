import { codePointLength } from '../format/code-point-length.js';
import {
  type CatalogEntry,
  type CatalogFormat,
  describedNote,
  guidancePart,
  minimumDescriptionLength,
  otherSkillsLabel,
  renderEntry,
  shortenToLimit,
} from './catalog-parts.js';
import { createTokenCounter } from './token-counter.js';

/** A text's UTF-8 size: never less than its o200k_base count (see `countTokens`). */
const utf8Length = (text: string) => Buffer.byteLength(text, 'utf8');

/** The memo of a measure that remembers nothing (see `measureWith`). */
const unremembered = new Float64Array(0);

/** A size limit for the rendered catalog, in tokens (o200k_base) and/or characters. */
export interface CatalogBudget {
  /** Most o200k_base tokens the catalog (guidance included) may take. */
  tokens?: number;
  /** Most characters (Unicode code points) the catalog (guidance included) may take. */
  characters?: number;
}

/**
 * One way to measure a catalog (code points or tokens) with the most it may take, and what each
 * skill's part costs in it, remembered per skill: a skill's full entry, its entry at the shortest
 * description, and its name-only form are the same at every step of the search.
 */
interface Measure {
  limit: number;
  of: (text: string) => number;
  full: Float64Array;
  shortest: Float64Array;
  nameOnly: Float64Array;
}

/**
 * Picks the catalog that fits the budget: all skills described in full if that fits; else the
 * largest description cap that fits (a binary search, fitting being monotone in the cap); else the
 * most skills described at `minimumDescriptionLength` with the rest listed by name (a binary
 * search over the count); else every skill by name, over budget.
 *
 * Why it is cheap at any size: a catalog's cost is the sum of its parts' costs, because each part
 * starts where a pre-token must start (see `createTokenCounter`, and `nameUnit` below for the
 * `Other skills` line), so a step adds the skills' costs in catalog order and stops as soon as the
 * sum passes the limit. Every part costs at least one, so a step looks at no more skills than the
 * budget allows, whatever the number of skills; nothing is joined or kept per step, so memory is a
 * few numbers per skill.
 */
export function chooseBudgetedEntries(
  full: readonly CatalogEntry[],
  format: CatalogFormat,
  guidanceText: string,
  budget: CatalogBudget,
): CatalogEntry[] {
  const count = full.length;
  const lengths = new Float64Array(count);
  let longest = 0;
  for (let index = 0; index < count; index += 1) {
    const length = codePointLength(full[index]!.description!);
    lengths[index] = length;
    if (length > longest) longest = length;
  }
  const guidance = guidancePart(guidanceText);
  const counter = createTokenCounter();
  // A measure used for one pass (the byte bound below) looks at each part once and remembers
  // nothing: three tables of the library's size per render were a million skills' 24 MB.
  const measureWith = (limit: number, of: (text: string) => number, remember = true): Measure => {
    const table = () => (remember ? new Float64Array(count).fill(-1) : unremembered);
    return { limit, of, full: table(), shortest: table(), nameOnly: table() };
  };
  const characters = budget.characters === undefined ? undefined : measureWith(budget.characters, codePointLength);
  const tokens = budget.tokens === undefined ? undefined : measureWith(budget.tokens, (text) => counter.count(text));
  // Characters first: counting them is cheap, and a candidate over that budget need not be tokenized.
  const measures = [characters, tokens].filter((candidate) => candidate !== undefined);

  const atCap = (index: number, cap: number): CatalogEntry => {
    const entry = full[index]!;
    return { ...entry, description: shortenToLimit(entry.description!, lengths[index]!, cap) };
  };
  // A skill listed by name only shows neither description nor location.
  const nameOnly = (index: number): CatalogEntry => ({ name: full[index]!.name });
  const remembered = (memo: Float64Array, index: number, measure: Measure, text: () => string): number => {
    if (memo === unremembered) return measure.of(text());
    let cost = memo[index]!;
    if (cost < 0) memo[index] = cost = measure.of(text());
    return cost;
  };
  /** The cost of skill `index` described at `cap` (Infinity: in full), as a part in the middle of the list. */
  const describedCost = (measure: Measure, index: number, cap: number): number => {
    if (lengths[index]! <= cap)
      return remembered(measure.full, index, measure, () => renderEntry(full[index]!, format));
    if (cap === minimumDescriptionLength)
      return remembered(measure.shortest, index, measure, () => renderEntry(atCap(index, cap), format));
    return measure.of(renderEntry(atCap(index, cap), format));
  };
  /**
   * A name on the text catalog's `Other skills: a, b, c` line, as ` name,`: the pre-token that holds a
   * comma (or the label's colon) is a punctuation run, which cannot take in the space after it, and
   * nothing looks behind, so the line splits into pre-tokens at every `, ` and the units add up.
   */
  const nameUnit = (index: number) => ` ${full[index]!.name},`;
  const nameCost = (measure: Measure, index: number): number =>
    remembered(measure.nameOnly, index, measure, () =>
      format === 'text' ? nameUnit(index) : renderEntry(nameOnly(index), format),
    );

  /**
   * The cost of the catalog with the first `described` skills described at `cap` and the rest by
   * name, or some number over the limit as soon as it is clear the catalog does not fit.
   */
  const cost = (measure: Measure, cap: number, described: number): number => {
    const last = count - 1;
    let total: number;
    if (format === 'text') {
      total = measure.of(`Available skills${describedNote(described, count)}:\n`);
      // The list's last line loses its line break and runs into the guidance, so it is counted with it.
      if (described === count) total += measure.of(`${renderEntry(atCap(last, cap), format).trimEnd()}${guidance}`);
      else total += measure.of(otherSkillsLabel) + measure.of(` ${full[last]!.name}${guidance}`);
    } else {
      const note = describedNote(described, count);
      total =
        (note === '' ? 0 : measure.of(`${note.trim()}\n`)) +
        measure.of('<available_skills>\n') +
        measure.of(`</available_skills>${guidance}`);
      if (described === count) total += describedCost(measure, last, cap);
      else total += nameCost(measure, last);
    }
    const describedEnd = Math.min(described, last);
    for (let index = 0; index < describedEnd && total <= measure.limit; index += 1)
      total += describedCost(measure, index, cap);
    for (let index = describedEnd; index < last && total <= measure.limit; index += 1)
      total += nameCost(measure, index);
    return total;
  };
  const fits = (cap: number, described: number) =>
    measures.every((measure) => cost(measure, cap, described) <= measure.limit);

  /**
   * A catalog whose parts' UTF-8 bytes add up to no more than the token budget is within it: every
   * o200k_base token stands for at least one byte (see `countTokens`), so no part counts more tokens
   * than it has bytes. That settles whether a small library's full catalog fits without loading the
   * tokenizer's ranks (about half a second and their memory, on an MCP server's first answer and an
   * agent's first step). Above the bound the tokens are counted, so the answer is the same either way.
   */
  const everything = Number.POSITIVE_INFINITY;
  const withinByteBound = (candidate: Measure) =>
    candidate === tokens && cost(measureWith(candidate.limit, utf8Length, false), everything, count) <= candidate.limit;
  if (
    measures.every((candidate) => withinByteBound(candidate) || cost(candidate, everything, count) <= candidate.limit)
  )
    return [...full];

  const bestCap = largestPassing(minimumDescriptionLength, longest - 1, (cap) => fits(cap, count));
  if (bestCap !== -1) return full.map((_, index) => atCap(index, bestCap));
  const bestCount = largestPassing(0, count - 1, (described) => fits(minimumDescriptionLength, described));
  const described = Math.max(bestCount, 0);
  return full.map((_, index) => (index < described ? atCap(index, minimumDescriptionLength) : nameOnly(index)));
}

/** The largest value in [low, high] that `passes`, for a `passes` that holds up to a point and not after; -1 when none does. */
function largestPassing(low: number, high: number, passes: (value: number) => boolean): number {
  let best = -1;
  while (low <= high) {
    const middle = Math.floor((low + high) / 2);
    if (passes(middle)) {
      best = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return best;
}
