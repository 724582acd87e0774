// The MiniSearch side of the skill-search comparison (bench/skill-search.bench.ts): the same
// TextIndex contract as src/search/bm25-index.ts, fed the same terms, so the figures compare the
// index implementations and not the tokenizers.
import MiniSearch from 'minisearch';
import type { SearchDocument, SearchMatch, TextIndex } from '../src/search/bm25-index.js';
import { searchTerms } from '../src/search/search-terms.js';

export function createMiniSearchIndex(weights: readonly number[]): TextIndex {
  const fields = weights.map((_, index) => `f${index}`);
  const boost = Object.fromEntries(fields.map((field, index) => [field, weights[index]!]));
  const index = new MiniSearch<Record<string, string>>({
    fields,
    idField: 'id',
    tokenize: (text) => searchTerms(text),
    processTerm: (term) => term,
    searchOptions: { boost, combineWith: 'OR', tokenize: (text) => searchTerms(text), processTerm: (term) => term },
  });
  const stored = new Map<string, Record<string, string>>();
  return {
    get size() {
      return stored.size;
    },
    has: (id) => stored.has(id),
    add(document: SearchDocument) {
      this.remove(document.id);
      const record: Record<string, string> = { id: document.id };
      fields.forEach((field, position) => {
        record[field] = document.fields[position] ?? '';
      });
      index.add(record);
      stored.set(document.id, record);
    },
    remove(id) {
      const record = stored.get(id);
      if (record === undefined) return;
      index.remove(record);
      stored.delete(id);
    },
    search(query, limit): SearchMatch[] {
      return index
        .search(query)
        .slice(0, limit)
        .map((result) => ({ id: String(result.id), score: result.score }));
    },
  };
}
