import type { SkillRepository } from './types.js';

// How a SkillRepository is recognised, without zod: the repository factories reached from the root
// entry check their arguments with these, and skill-repository-schema.ts builds its schemas on them.

/** The methods every SkillRepository has; an option that lacks one of them is not a repository. */
export const repositoryMethods = ['list', 'get', 'listFiles', 'readFile', 'report', 'refresh'] as const;

/** What is said of a value that is not a SkillRepository, by the schema and the checks written out alike. */
export const notSkillRepositoryProblem = `must be a SkillRepository (an object with ${repositoryMethods.map((method) => `${method}()`).join(', ')})`;

/** What is said of a value that cannot list skills. */
export const notListingRepositoryProblem = 'must be a SkillRepository (an object with a list() method)';

function hasMethods(value: unknown, methods: readonly string[]): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function')
  );
}

/** Whether `value` is a SkillRepository, recognised by its methods (one from another copy of skillbox passes). */
export function isSkillRepository(value: unknown): value is SkillRepository {
  return hasMethods(value, repositoryMethods);
}

/** Whether `value` can list skills: all the tools and integrations need of a repository to start. */
export function isListingRepository(value: unknown): value is SkillRepository {
  return hasMethods(value, ['list']);
}
