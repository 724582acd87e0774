import { searchTerms } from './search-terms.js';

/** One searchable document: its id and the text of each field, in the order of the index's fields. */
export interface SearchDocument {
  id: string;
  fields: readonly string[];
}

/** A document that matched, with its BM25 score (higher is better). */
export interface SearchMatch {
  id: string;
  score: number;
}

/** What a text index offers the skill search: add, remove and search documents by id. */
export interface TextIndex {
  readonly size: number;
  add(document: SearchDocument): void;
  remove(id: string): void;
  has(id: string): boolean;
  search(query: string, limit: number): SearchMatch[];
}

/** BM25's usual constants: term-frequency saturation and length normalisation. */
const k1 = 1.2;
const b = 0.75;

/** Per term: the documents holding it and, `fields` numbers per document, how often each field holds it. */
interface Posting {
  documents: number[];
  frequencies: number[];
  /** Per field, how many documents hold the term in that field. */
  documentCounts: number[];
}

/**
 * A BM25 index over a few weighted fields, kept in memory and changed one document at a time, so a
 * repository change costs only the skills that changed. Each field is scored as its own BM25 (its
 * own document frequencies and length normalisation) and the scores are summed with the field's
 * weight: a word rare among names but common among descriptions ("pdf") counts as rare in a name.
 *
 * Scores follow MiniSearch's recipe (BM25 per field with the field's weight, the sum multiplied by
 * how many distinct query words matched, so a skill matching "pdf" and "form" outranks one matching
 * "pdf" twice), and on the corpus queries both have the same recall at 1 and at 5. Written here rather than taken
 * from MiniSearch because of speed, measured by bench/skill-search.bench.ts (figures in
 * docs/skill-search.md): at 100,000 skills a query takes about a twentieth of MiniSearch's time
 * and an index builds in a little over half of it, since postings are flat arrays of small
 * integers scanned in one pass, where MiniSearch walks a radix tree of maps built for the prefix
 * and fuzzy search the skill search does not offer. MiniSearch keeps the index in about 20% less
 * memory. It also adds no runtime dependency.
 */
export class Bm25Index implements TextIndex {
  private readonly fieldCount: number;
  private readonly numbers = new Map<string, number>();
  private ids: (string | undefined)[] = [];
  /** `fieldCount` lengths per document number, in terms. */
  private lengths: number[] = [];
  /** The distinct terms of each document number, to take it out of the postings again. */
  private terms: (string[] | undefined)[] = [];
  private readonly free: number[] = [];
  private readonly postings = new Map<string, Posting>();
  private readonly totalLengths: number[];
  private readonly fieldCounts: number[];

  constructor(private readonly weights: readonly number[]) {
    this.fieldCount = weights.length;
    this.totalLengths = weights.map(() => 0);
    this.fieldCounts = weights.map(() => 0);
  }

  get size(): number {
    return this.numbers.size;
  }

  has(id: string): boolean {
    return this.numbers.has(id);
  }

  add(document: SearchDocument): void {
    this.remove(document.id);
    const number = this.free.pop() ?? this.ids.length;
    this.ids[number] = document.id;
    this.numbers.set(document.id, number);
    const counts = new Map<string, number[]>();
    for (let field = 0; field < this.fieldCount; field += 1) {
      const terms = searchTerms(document.fields[field] ?? '');
      this.lengths[number * this.fieldCount + field] = terms.length;
      this.totalLengths[field]! += terms.length;
      if (terms.length > 0) this.fieldCounts[field]! += 1;
      for (const term of terms) {
        let perField = counts.get(term);
        if (perField === undefined) {
          perField = new Array<number>(this.fieldCount).fill(0);
          counts.set(term, perField);
        }
        perField[field]! += 1;
      }
    }
    for (const [term, perField] of counts) {
      let posting = this.postings.get(term);
      if (posting === undefined) {
        posting = { documents: [], frequencies: [], documentCounts: new Array<number>(this.fieldCount).fill(0) };
        this.postings.set(term, posting);
      }
      posting.documents.push(number);
      for (let field = 0; field < this.fieldCount; field += 1) {
        posting.frequencies.push(perField[field]!);
        if (perField[field]! > 0) posting.documentCounts[field]! += 1;
      }
    }
    this.terms[number] = [...counts.keys()];
  }

  remove(id: string): void {
    const number = this.numbers.get(id);
    if (number === undefined) return;
    for (let field = 0; field < this.fieldCount; field += 1) {
      const length = this.lengths[number * this.fieldCount + field]!;
      this.totalLengths[field]! -= length;
      if (length > 0) this.fieldCounts[field]! -= 1;
    }
    for (const term of this.terms[number]!) {
      const posting = this.postings.get(term)!;
      const at = posting.documents.indexOf(number);
      for (let field = 0; field < this.fieldCount; field += 1)
        if (posting.frequencies[at * this.fieldCount + field]! > 0) posting.documentCounts[field]! -= 1;
      posting.documents.splice(at, 1);
      posting.frequencies.splice(at * this.fieldCount, this.fieldCount);
      if (posting.documents.length === 0) this.postings.delete(term);
    }
    this.ids[number] = undefined;
    this.terms[number] = undefined;
    this.numbers.delete(id);
    this.free.push(number);
  }

  search(query: string, limit: number): SearchMatch[] {
    if (this.numbers.size === 0 || limit <= 0) return [];
    const fields = this.fieldCount;
    const averages = this.totalLengths.map((total, field) =>
      Math.max(total / Math.max(this.fieldCounts[field]!, 1), 1),
    );
    const scores = new Float64Array(this.ids.length);
    const matchedTerms = new Uint16Array(this.ids.length);
    const touched: number[] = [];
    const total = this.numbers.size;
    for (const term of new Set(searchTerms(query))) {
      const posting = this.postings.get(term);
      if (posting === undefined) continue;
      const weightedIdf = posting.documentCounts.map((count, field) =>
        count === 0 ? 0 : this.weights[field]! * Math.log(1 + (total - count + 0.5) / (count + 0.5)),
      );
      const { documents, frequencies } = posting;
      for (let position = 0; position < documents.length; position += 1) {
        const number = documents[position]!;
        let score = 0;
        for (let field = 0; field < fields; field += 1) {
          const frequency = frequencies[position * fields + field]!;
          if (frequency === 0) continue;
          const norm = k1 * (1 - b + (b * this.lengths[number * fields + field]!) / averages[field]!);
          score += (weightedIdf[field]! * frequency * (k1 + 1)) / (frequency + norm);
        }
        if (matchedTerms[number] === 0) touched.push(number);
        matchedTerms[number]! += 1;
        scores[number]! += score;
      }
    }
    return bestMatches(
      touched,
      (number) => scores[number]! * matchedTerms[number]!,
      (number) => this.ids[number]!,
      limit,
    );
  }
}

/**
 * The `limit` best documents, best first, ties broken by id so the order is the same on every
 * run. A kept list of the best so far, not a sort of every match: a common word matches most of a
 * large library, and only a handful are returned.
 */
function bestMatches(
  candidates: readonly number[],
  scoreOf: (number: number) => number,
  idOf: (number: number) => string,
  limit: number,
): SearchMatch[] {
  const better = (left: SearchMatch, right: SearchMatch) =>
    left.score > right.score || (left.score === right.score && left.id < right.id);
  const best: SearchMatch[] = [];
  for (const number of candidates) {
    const score = scoreOf(number);
    if (best.length === limit && score < best[limit - 1]!.score) continue;
    const match = { id: idOf(number), score };
    if (best.length === limit && !better(match, best[limit - 1]!)) continue;
    let at = best.length;
    while (at > 0 && better(match, best[at - 1]!)) at -= 1;
    best.splice(at, 0, match);
    if (best.length > limit) best.pop();
  }
  return best;
}
