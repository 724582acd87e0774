import { homedir } from 'node:os';
import { FsSkillRepository } from '../repository/fs-skill-repository.js';
import type { CliIo } from './command.js';

/**
 * The repository a command works on: the `--root` folders in the order given, or the standard roots
 * (SKILLS_ROOT, ./.agents/skills, ./.claude/skills, ./skills, ~/.agents/skills, ~/.claude/skills)
 * when there are none, resolved against `io.cwd` and `io.env`. Scan warnings (a missing --root, a
 * URL root, a link not followed) go to standard error, so a command's standard output stays clean.
 */
export async function openRepositoryFromArgs(roots: string[], io: CliIo): Promise<FsSkillRepository> {
  const repository = await FsSkillRepository.open({
    ...(roots.length > 0 ? { roots } : {}),
    cwd: io.cwd,
    env: io.env,
    home: io.env.HOME ?? homedir(),
  });
  for (const warning of (await repository.report()).warnings) io.stderr(`warning: ${warning}\n`);
  return repository;
}

/** The roots a command scanned, for a message that explains why no skill was found. */
export function describeRoots(repository: FsSkillRepository, roots: string[]): string {
  const scanned = repository.roots();
  if (scanned.length > 0) return scanned.join(', ');
  return roots.length > 0 ? `${roots.join(', ')} (none usable)` : 'the standard roots (none exist)';
}
