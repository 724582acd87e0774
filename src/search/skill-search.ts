import { type ModelInvocationOptions, modelInvocableSkills } from '../disclosure/model-invocable-skills.js';
import type { SkillContext, SkillRepository } from '../repository/types.js';
import { Bm25Index, type TextIndex } from './bm25-index.js';

/** One skill that matched a search, best first. */
export interface SkillSearchHit {
  name: string;
  description: string;
  /** BM25 score: higher is a better match; comparable only within one search. */
  score: number;
}

/** Options of `createSkillSearch`: what is indexed and who may be shown what. */
export interface SkillSearchOptions extends ModelInvocationOptions {
  /**
   * Index SKILL.md bodies too (default false: names and descriptions). Bodies find skills whose
   * description is short, at the cost of reading every skill when the repository changes.
   */
  bodies?: boolean;
  /** The text index to fill (default: `Bm25Index`); the benchmark passes MiniSearch here to compare. */
  createIndex?: (weights: readonly number[]) => TextIndex;
}

/** Searches one repository's skills; the index follows the repository's changes. */
export interface SkillSearch {
  /** The `limit` best matches for `query` among the skills `context` may see, best first. */
  search(query: string, options?: { limit?: number; context?: SkillContext }): Promise<SkillSearchHit[]>;
}

/**
 * Field weights: a word of the name says more than one of the description, which says more than one
 * of the body (long, and full of words every skill's instructions use).
 */
const nameWeight = 3;
const descriptionWeight = 1;
const bodyWeight = 0.3;

/** Callers (contexts) whose index is kept at once; each sees its own skills, so each has its own index. */
const rememberedContexts = 16;

interface IndexedSkill {
  description: string;
  path: string | undefined;
  body: string;
}

interface ContextIndex {
  generation: number | undefined;
  /** Per indexed skill, what its entry was built from: a skill is re-indexed only when this changes. */
  indexed: Map<string, IndexedSkill>;
  index: TextIndex;
  /** The update in progress, so two searches at once do not both re-index. */
  updating: Promise<void> | undefined;
}

function contextKey(context: SkillContext | undefined): string | undefined {
  if (context === undefined) return '';
  try {
    return JSON.stringify(context);
  } catch {
    return undefined;
  }
}

/**
 * BM25 search over a repository's skills (see docs/skill-search.md). The index is built on the
 * first search and then kept: a repository with `generation()` is re-listed only when that number
 * moved, one without is re-listed on every search; either way only the skills whose name,
 * description, path (or body, when indexed) changed are re-indexed. Skills the caller may not see,
 * and by default those kept from the model, are never in the index a caller searches.
 */
export function createSkillSearch(repository: SkillRepository, options: SkillSearchOptions = {}): SkillSearch {
  const weights =
    options.bodies === true ? [nameWeight, descriptionWeight, bodyWeight] : [nameWeight, descriptionWeight];
  const createIndex = options.createIndex ?? ((fieldWeights) => new Bm25Index(fieldWeights));
  const indexes = new Map<string, ContextIndex>();

  const update = async (state: ContextIndex, context: SkillContext | undefined): Promise<void> => {
    const generation = repository.generation?.();
    if (generation !== undefined && state.generation === generation) return;
    const summaries = modelInvocableSkills(await repository.list(context), options);
    const present = new Set<string>();
    for (const summary of summaries) {
      present.add(summary.name);
      const body = options.bodies === true ? (await repository.get(summary.name, context)).body : '';
      const known = state.indexed.get(summary.name);
      if (known?.description === summary.description && known.path === summary.path && known.body === body) continue;
      state.index.add({ id: summary.name, fields: [summary.name, summary.description, body] });
      state.indexed.set(summary.name, { description: summary.description, path: summary.path, body });
    }
    for (const name of state.indexed.keys()) {
      if (present.has(name)) continue;
      state.index.remove(name);
      state.indexed.delete(name);
    }
    state.generation = generation;
  };

  const stateFor = (context: SkillContext | undefined): ContextIndex => {
    const key = contextKey(context);
    const known = key === undefined ? undefined : indexes.get(key);
    if (known !== undefined) return known;
    const fresh: ContextIndex = {
      generation: undefined,
      indexed: new Map(),
      index: createIndex(weights),
      updating: undefined,
    };
    if (key !== undefined) {
      if (indexes.size >= rememberedContexts) indexes.delete(indexes.keys().next().value!);
      indexes.set(key, fresh);
    }
    return fresh;
  };

  return {
    async search(query, searchOptions = {}) {
      const limit = searchOptions.limit ?? 10;
      const state = stateFor(searchOptions.context);
      while (state.updating !== undefined) await state.updating;
      const updating = update(state, searchOptions.context);
      state.updating = updating;
      try {
        await updating;
      } finally {
        state.updating = undefined;
      }
      return state.index.search(query, limit).map((match) => ({
        name: match.id,
        description: state.indexed.get(match.id)?.description ?? '',
        score: Math.round(match.score * 1000) / 1000,
      }));
    },
  };
}
