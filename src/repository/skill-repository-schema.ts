import type { z } from 'zod';
import { objectWithMethods } from '../config/option-schemas.js';
import type { SkillRepository } from './types.js';

/** The methods every SkillRepository has; an option that lacks one of them is not a repository. */
const repositoryMethods = ['list', 'get', 'listFiles', 'readFile', 'report', 'refresh'] as const;

/** A SkillRepository, recognised by its methods (a repository from another copy of skillbox passes). */
export function skillRepositorySchema(): z.ZodType<SkillRepository> {
  return objectWithMethods<SkillRepository>(
    repositoryMethods,
    `must be a SkillRepository (an object with ${repositoryMethods.map((method) => `${method}()`).join(', ')})`,
  );
}

/** What a caller needs of a repository to list skills: `list()`. The tools and integrations need no more to start. */
export function listingRepositorySchema(): z.ZodType<SkillRepository> {
  return objectWithMethods<SkillRepository>(['list'], 'must be a SkillRepository (an object with a list() method)');
}
