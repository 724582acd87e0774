import type { SkillSource, SourceSearchResult } from './skill-source.js';
import { SkillSourceError } from './sources/skill-source-error.js';

/** The sources the installer picks from, in order: the first whose syntax matches a reference serves it. */
export interface SourceRegistry {
  readonly sources: readonly SkillSource[];
  /** The source for `reference`; throws SkillSourceError listing the kinds known when none matches. */
  sourceFor(reference: string): SkillSource;
  /** The source of a type (for a lock entry, whose `sourceType` names it). */
  sourceOfType(type: string): SkillSource | undefined;
  /** Searches every source that can, merging hits in source order; failures are returned beside the hits. */
  search(
    query: string,
    options?: { readonly limit?: number; readonly signal?: AbortSignal },
  ): Promise<{ results: SourceSearchResult[]; failures: string[]; searched: number }>;
}

/** A registry over `sources` (order matters: put the most specific syntax first). */
export function createSourceRegistry(sources: readonly SkillSource[]): SourceRegistry {
  return {
    sources,
    sourceFor(reference) {
      const source = sources.find((candidate) => candidate.matches(reference));
      if (source === undefined)
        throw new SkillSourceError(
          undefined,
          reference,
          'invalid-reference',
          `no source understands this reference (known: ${sources.map((candidate) => candidate.type).join(', ') || 'none'})`,
        );
      return source;
    },
    sourceOfType(type) {
      return sources.find((candidate) => candidate.type === type);
    },
    async search(query, options = {}) {
      const searchable = sources.filter((source) => typeof source.search === 'function');
      const settled = await Promise.allSettled(
        searchable.map((source) =>
          (source.search as NonNullable<SkillSource['search']>)(query, {
            ...(options.limit === undefined ? {} : { limit: options.limit }),
            ...(options.signal === undefined ? {} : { signal: options.signal }),
          }),
        ),
      );
      const results: SourceSearchResult[] = [];
      const failures: string[] = [];
      settled.forEach((outcome, position) => {
        if (outcome.status === 'fulfilled') results.push(...outcome.value);
        else failures.push(`${searchable[position]?.type}: ${(outcome.reason as Error).message}`);
      });
      return {
        results: options.limit === undefined ? results : results.slice(0, options.limit),
        failures,
        searched: searchable.length,
      };
    },
  };
}
