import type { SkillRepository } from '../repository/types.js';
import { didYouMean } from './did-you-mean.js';

/**
 * " Did you mean X?" for a skill name the repository does not have, or '' when no listed name is
 * close. A typo in a name is the usual reason a command finds no skill, so every command that takes
 * one says what it probably meant, as `chat`'s `/skill` does.
 */
export async function unknownSkillHint(repository: Pick<SkillRepository, 'list'>, typed: string): Promise<string> {
  const names = (await repository.list()).map((summary) => summary.name);
  return didYouMean(typed, names);
}
