import { OptionProblems } from '../config/option-problems.js';
import { describeValue } from '../config/validate-options.js';
import { compareNames } from './compare-names.js';
import { SkillNotFoundError } from './errors.js';
import { isSkillRepository, notSkillRepositoryProblem } from './is-skill-repository.js';
import type { RepositoryReport, ShadowedSkill, Skill, SkillContext, SkillRepository, SkillSummary } from './types.js';

/**
 * Throws SkillboxConfigError unless `repositories` is an array of repositories. Written out, not a
 * zod schema: the root entry reaches this file, and zod should not load with it (OptionProblems).
 */
function checkRepositories(repositories: unknown): void {
  const problems = new OptionProblems('combineRepositories');
  if (!Array.isArray(repositories))
    problems.add('repositories', `must be an array of repositories; got ${describeValue(repositories)}`);
  else
    for (let index = 0; index < repositories.length; index += 1)
      if (!isSkillRepository(repositories[index]))
        problems.add(
          `repositories[${index}]`,
          `${notSkillRepositoryProblem}; got ${describeValue(repositories[index])}`,
        );
  problems.throwIfAny();
}

/** Where a skill lives, for reports: its folder, or its place in the combination when it has none. */
function locate(summary: SkillSummary, repositoryIndex: number): string {
  return summary.path ?? `repository #${repositoryIndex}: ${summary.name}`;
}

/**
 * Several repositories seen as one. Order matters: the first repository that has a skill of a name
 * (visible to the caller) serves it; the same name in a later repository is shadowed.
 */
export class CombinedSkillRepository implements SkillRepository {
  readonly #repositories: readonly SkillRepository[];

  constructor(repositories: readonly SkillRepository[]) {
    checkRepositories(repositories);
    this.#repositories = [...repositories];
  }

  async list(context?: SkillContext): Promise<SkillSummary[]> {
    const lists = await Promise.all(this.#repositories.map((repository) => repository.list(context)));
    const winners = new Map<string, SkillSummary>();
    for (const list of lists) {
      for (const summary of list) if (!winners.has(summary.name)) winners.set(summary.name, summary);
    }
    return [...winners.values()].sort((left, right) => compareNames(left.name, right.name));
  }

  /** Tries each repository in order; "not found" from one means "ask the next". */
  async #first<T>(name: string, read: (repository: SkillRepository) => Promise<T>): Promise<T> {
    for (const repository of this.#repositories) {
      try {
        return await read(repository);
      } catch (error) {
        if (error instanceof SkillNotFoundError && error.skill === name) continue;
        throw error;
      }
    }
    throw new SkillNotFoundError(name);
  }

  get(name: string, context?: SkillContext): Promise<Skill> {
    return this.#first(name, (repository) => repository.get(name, context));
  }

  listFiles(name: string, context?: SkillContext): Promise<string[]> {
    return this.#first(name, (repository) => repository.listFiles(name, context));
  }

  readFile(name: string, relativePath: string, context?: SkillContext): Promise<Buffer> {
    return this.#first(name, (repository) => repository.readFile(name, relativePath, context));
  }

  /**
   * Each repository's own report, plus names shadowed across repositories. Cross-repository
   * shadowing is computed from `list()` without a context, the view an operator gets.
   */
  async report(): Promise<RepositoryReport> {
    const [reports, lists] = await Promise.all([
      Promise.all(this.#repositories.map((repository) => repository.report())),
      Promise.all(this.#repositories.map((repository) => repository.list())),
    ]);
    const combined: RepositoryReport = {
      skipped: reports.flatMap((report) => report.skipped),
      shadowed: reports.flatMap((report) => report.shadowed),
      warnings: reports.flatMap((report) => report.warnings),
    };
    const winners = new Map<string, string>();
    const across: ShadowedSkill[] = [];
    lists.forEach((list, index) => {
      for (const summary of list) {
        const winner = winners.get(summary.name);
        if (winner === undefined) winners.set(summary.name, locate(summary, index));
        else across.push({ name: summary.name, path: locate(summary, index), winner });
      }
    });
    combined.shadowed.push(...across);
    return combined;
  }

  async refresh(): Promise<void> {
    await Promise.all(this.#repositories.map((repository) => repository.refresh()));
  }

  /** The sum of the sources' counters (each only grows, so the sum grows when any does); undefined when one cannot tell. */
  generation(): number | undefined {
    let total = 0;
    for (const repository of this.#repositories) {
      const generation = repository.generation?.();
      if (generation === undefined) return undefined;
      total += generation;
    }
    return total;
  }
}

/** One repository over several: the first that has a name wins, later ones are reported as shadowed. */
export function combineRepositories(repositories: readonly SkillRepository[]): CombinedSkillRepository {
  return new CombinedSkillRepository(repositories);
}
