import { throwConfigError } from '../config/option-problems.js';
import { SkillFileReadError } from '../repository/errors.js';
import type { SkillContext, SkillRepository } from '../repository/types.js';
import { type CatalogFormat, renderCatalog, renderCatalogEntry } from './catalog.js';
import { type ModelInvocationOptions, modelInvocableSkills } from './model-invocable-skills.js';
import { countTokens, tokenizerName } from './token-counter.js';
import { utf8Window } from './utf8-window.js';

/** Default `maxCountedDocBytes`: 256 KiB, far past any doc a request injects whole (see materializeRequest). */
export const defaultMaxCountedDocBytes = 256 * 1024;

/** Token figures of one skill. Keys are snake_case because they are the `skillbox tokens --json` output. */
export interface SkillTokenFigures {
  name: string;
  /** The name and the description counted on their own: the least any catalog can cost. */
  name_description_tokens: number;
  /** The skill's entry in the catalog of the report's format. */
  catalog_tokens: number;
  /** The SKILL.md body (frontmatter stripped): what loading the skill costs. */
  body_tokens: number;
  /** Every doc of the skill together (docs over the cap: their first `maxCountedDocBytes` bytes). */
  docs_tokens: number;
  /** Docs larger than the cap, of which only the first `maxCountedDocBytes` bytes were counted. */
  docs_capped: number;
  /** Docs the repository would not serve (over its read limit, not a file), not counted. */
  docs_unreadable: number;
}

/** Token figures of a repository: the catalog against the bodies and docs of every skill, per skill and in total. */
export interface TokenReport {
  tokenizer: string;
  skills: SkillTokenFigures[];
  totals: {
    name_description: number;
    /** The whole catalog (header included, guidance excluded): what progressive disclosure costs up front. */
    catalog: number;
    /** Every body at once: what injecting all skills up front would cost. */
    bodies: number;
    bodies_and_docs: number;
    docs_capped: number;
    docs_unreadable: number;
  };
  /** The cap the doc figures were counted with. */
  max_counted_doc_bytes: number;
}

/** What `buildTokenReport` counts: the repository, the catalog format, the caller's context and how much of each doc. */
export interface TokenReportOptions extends ModelInvocationOptions {
  repository: SkillRepository;
  format?: CatalogFormat;
  skillContext?: SkillContext;
  /** Count at most this many bytes of each doc (default 256 KiB): a doc past it is counted by its prefix and reported as capped. */
  maxCountedDocBytes?: number;
  /** Called after each skill is counted, with how many are done of how many (a progress line for a large repository). */
  onProgress?: (done: number, total: number) => void;
}

/** Percentage of `full` that `part` saves, one decimal; 0 when there is nothing to save. */
export function percentSaved(part: number, full: number): number {
  return full <= 0 ? 0 : Math.round((1 - part / full) * 1000) / 10;
}

/**
 * Measures the visible skills of a repository with the o200k tokenizer: the skills the model is
 * offered (see `isModelInvocable`), so the catalog and the bodies it saves are over the same skills.
 */
export async function buildTokenReport(options: TokenReportOptions): Promise<TokenReport> {
  const format = options.format ?? 'text';
  const maxCounted = options.maxCountedDocBytes ?? defaultMaxCountedDocBytes;
  if (!Number.isInteger(maxCounted) || maxCounted <= 0) {
    throwConfigError(
      'buildTokenReport',
      'maxCountedDocBytes',
      `must be a positive whole number of bytes; got ${JSON.stringify(options.maxCountedDocBytes)}`,
    );
  }
  const summaries = modelInvocableSkills(await options.repository.list(options.skillContext), options);
  const skills: SkillTokenFigures[] = [];
  for (const summary of summaries) {
    const skill = await options.repository.get(summary.name, options.skillContext);
    let docsTokens = 0;
    let capped = 0;
    let unreadable = 0;
    for (const doc of skill.docs) {
      let bytes: Buffer;
      try {
        bytes = await options.repository.readFile(skill.name, doc, options.skillContext);
      } catch (error) {
        if (!(error instanceof SkillFileReadError)) throw error;
        unreadable += 1;
        continue;
      }
      const counted = utf8Window(bytes, 0, maxCounted);
      if (counted.end < bytes.length) capped += 1;
      docsTokens += countTokens(counted.text);
    }
    skills.push({
      name: skill.name,
      name_description_tokens: countTokens(skill.name) + countTokens(skill.description),
      catalog_tokens: countTokens(renderCatalogEntry(summary, format)),
      body_tokens: countTokens(skill.body),
      docs_tokens: docsTokens,
      docs_capped: capped,
      docs_unreadable: unreadable,
    });
    options.onProgress?.(skills.length, summaries.length);
  }
  const sum = (pick: (figures: SkillTokenFigures) => number) =>
    skills.reduce((total, figures) => total + pick(figures), 0);
  return {
    tokenizer: tokenizerName,
    skills,
    totals: {
      name_description: sum((figures) => figures.name_description_tokens),
      catalog: countTokens(
        renderCatalog({ skills: summaries, format, guidance: false, includeNonModelInvocable: true }),
      ),
      bodies: sum((figures) => figures.body_tokens),
      bodies_and_docs: sum((figures) => figures.body_tokens + figures.docs_tokens),
      docs_capped: sum((figures) => figures.docs_capped),
      docs_unreadable: sum((figures) => figures.docs_unreadable),
    },
    max_counted_doc_bytes: maxCounted,
  };
}
