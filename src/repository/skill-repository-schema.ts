import type { z } from 'zod';
import { objectWithMethods } from '../config/option-schemas.js';
import { notListingRepositoryProblem, notSkillRepositoryProblem, repositoryMethods } from './is-skill-repository.js';
import type { SkillRepository } from './types.js';

/** A SkillRepository, recognised by its methods (a repository from another copy of skillbox passes). */
export function skillRepositorySchema(): z.ZodType<SkillRepository> {
  return objectWithMethods<SkillRepository>(repositoryMethods, notSkillRepositoryProblem);
}

/** What a caller needs of a repository to list skills: `list()`. The tools and integrations need no more to start. */
export function listingRepositorySchema(): z.ZodType<SkillRepository> {
  return objectWithMethods<SkillRepository>(['list'], notListingRepositoryProblem);
}
