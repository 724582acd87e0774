import { OptionProblems } from '../config/option-problems.js';
import { describeValue } from '../config/validate-options.js';
import { SkillNotFoundError } from './errors.js';
import { isListingRepository, notListingRepositoryProblem } from './is-skill-repository.js';
import type { RepositoryReport, Skill, SkillContext, SkillRepository, SkillSummary } from './types.js';

/**
 * Throws SkillboxConfigError naming each wrong argument. Written out, not a zod schema: the root
 * entry reaches this file, and zod should not load with it (OptionProblems).
 */
function checkArguments(repository: unknown, visible: unknown): void {
  const problems = new OptionProblems('filterSkills');
  if (!isListingRepository(repository))
    problems.add('repository', `${notListingRepositoryProblem}; got ${describeValue(repository)}`);
  if (typeof visible !== 'function')
    problems.add('visible', `must be a function (summary, context) => boolean; got ${describeValue(visible)}`);
  problems.throwIfAny();
}

/**
 * Decides whether the caller described by `context` may see a skill. Called with `{}` when the
 * caller gave no context, so a filter that needs a user can simply deny when `userId` is absent.
 */
export type SkillVisibility = (summary: SkillSummary, context: SkillContext) => boolean | Promise<boolean>;

/**
 * A view of a repository that hides the skills the predicate rejects. A hidden skill behaves
 * exactly like an unknown one: absent from `list`, SkillNotFoundError from every other method,
 * before any file is touched, so the error cannot tell "hidden" from "missing".
 */
export class FilteredSkillRepository implements SkillRepository {
  readonly #base: SkillRepository;
  readonly #visible: SkillVisibility;

  constructor(base: SkillRepository, visible: SkillVisibility) {
    checkArguments(base, visible);
    this.#base = base;
    this.#visible = visible;
  }

  async list(context?: SkillContext): Promise<SkillSummary[]> {
    const summaries = await this.#base.list(context);
    const decisions = await Promise.all(summaries.map((summary) => this.#visible(summary, context ?? {})));
    return summaries.filter((_, index) => decisions[index] === true);
  }

  /** Resolves only when `name` is listed and visible; the summary the predicate sees is the listed one. */
  async #requireVisible(name: string, context: SkillContext | undefined): Promise<void> {
    const summary = (await this.#base.list(context)).find((candidate) => candidate.name === name);
    if (!summary || (await this.#visible(summary, context ?? {})) !== true) throw new SkillNotFoundError(name);
  }

  async get(name: string, context?: SkillContext): Promise<Skill> {
    await this.#requireVisible(name, context);
    return this.#base.get(name, context);
  }

  async listFiles(name: string, context?: SkillContext): Promise<string[]> {
    await this.#requireVisible(name, context);
    return this.#base.listFiles(name, context);
  }

  async readFile(name: string, relativePath: string, context?: SkillContext): Promise<Buffer> {
    await this.#requireVisible(name, context);
    return this.#base.readFile(name, relativePath, context);
  }

  /** The base repository's report, unfiltered: it is for operators, not for the model. */
  report(): Promise<RepositoryReport> {
    return this.#base.report();
  }

  refresh(): Promise<void> {
    return this.#base.refresh();
  }

  /**
   * The base repository's: the predicate is taken to decide the same for the same summary and
   * context. One that reads changing data (a permissions table) must be followed by `refresh()`.
   */
  generation(): number | undefined {
    return this.#base.generation?.();
  }
}

/** A view of a repository that shows each caller only the skills `visible` allows for its context. */
export function filterSkills(repository: SkillRepository, visible: SkillVisibility): FilteredSkillRepository {
  return new FilteredSkillRepository(repository, visible);
}
