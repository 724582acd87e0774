import { homedir } from 'node:os';
import { UnusableSkillRootError } from '../repository/errors.js';
import { FsSkillRepository } from '../repository/fs-skill-repository.js';
import type { CliIo } from './command.js';

/**
 * The repository a command works on: the `--root` folders in the order given, or the standard roots
 * (SKILLS_ROOT, ./.agents/skills, ./.claude/skills, ./skills, ~/.agents/skills, ~/.claude/skills)
 * when there are none, resolved against `io.cwd` and `io.env`. A `--root` that is missing or
 * unusable throws UnusableSkillRootError (exit 1): the user asked for it, so an empty result would
 * hide a typo. A missing standard root is silent and a missing SKILLS_ROOT entry a warning, as they
 * are set once for every command. Scan warnings (a URL root, a link not followed) go to standard
 * error, so a command's standard output stays clean.
 */
export async function openRepositoryFromArgs(roots: string[], io: CliIo): Promise<FsSkillRepository> {
  const repository = await FsSkillRepository.open({
    ...(roots.length > 0 ? { roots } : {}),
    cwd: io.cwd,
    env: io.env,
    home: io.env.HOME ?? homedir(),
  });
  if (roots.length > 0 && repository.rootProblems().length > 0) throw new UnusableSkillRootError(repository.rootProblems());
  for (const warning of (await repository.report()).warnings) io.stderr(`warning: ${warning}\n`);
  return repository;
}

/** The roots a command scanned, for a message that explains why no skill was found. */
export function describeRoots(repository: FsSkillRepository, roots: string[]): string {
  const scanned = repository.roots();
  if (scanned.length > 0) return scanned.join(', ');
  return roots.length > 0 ? `${roots.join(', ')} (none usable)` : 'the standard roots (none exist)';
}
