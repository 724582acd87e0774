import { z } from 'zod';
import { createSkillSearch, type SkillSearchHit } from '../search/skill-search.js';
import { parseToolInput, type SkillToolSettings } from './skill-tool-support.js';
import type { ToolDefinition } from './types.js';

/** Most results one `skill_search` call returns. */
export const maxSkillSearchResults = 25;

/** Results when the call asks for no number. */
export const defaultSkillSearchResults = 8;

/** What `skill_search` takes: words describing the task, and how many matches to return. */
export interface SkillSearchInput {
  query: string;
  limit?: number;
}

/** What `skill_search` returns: the matching skills, best first, each with its description and score. */
export interface SkillSearchOutput {
  results: SkillSearchHit[];
  /** Present when nothing matched: what to try instead. */
  note?: string;
}

/**
 * `skill_search`: finds skills by what they do (BM25 over names and descriptions, and bodies when
 * `searchBodies` is set), for a catalog too large for its budget to describe every skill. The index
 * is built on the first call and follows the repository's changes (src/search/skill-search.ts).
 */
export function createSkillSearchTool(
  settings: SkillToolSettings,
): ToolDefinition<SkillSearchInput, SkillSearchOutput> {
  const inputSchema = z
    .object({
      query: z
        .string()
        .trim()
        .min(1)
        .max(1000)
        .describe('Words describing the task or what the skill should do, e.g. "fill in a PDF form".'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(maxSkillSearchResults)
        .optional()
        .describe(`How many skills to return (default ${defaultSkillSearchResults}).`),
    })
    .strict() as unknown as z.ZodType<SkillSearchInput>;
  const search = createSkillSearch(settings.repository, {
    includeNonModelInvocable: settings.includeNonModelInvocable,
    ...(settings.searchBodies === true ? { bodies: true } : {}),
  });
  return {
    name: 'skill_search',
    writesState: false,
    description:
      'Search the skills by what they do: returns the best matching skill names, best first, with their full descriptions and a relevance score. Use it when the skill list is shortened and no listed skill clearly fits; then skill_load the one that matches.',
    inputSchema,
    async execute(input, context) {
      const { query, limit } = parseToolInput('skill_search', inputSchema, input, '{"query": "fill in a PDF form"}');
      const results = await search.search(query, {
        limit: limit ?? defaultSkillSearchResults,
        ...(context.skillContext !== undefined ? { context: context.skillContext } : {}),
      });
      if (results.length > 0) return { results };
      return {
        results,
        note: 'No skill matched these words. Try other words for the task (a tool, file type or domain), or fewer of them.',
      };
    },
  };
}
