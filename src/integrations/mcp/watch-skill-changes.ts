import type { SkillRepository } from '../../repository/types.js';

interface WatchableRepository {
  watch(listener: () => void, options?: { onError?: (error: unknown) => void; files?: boolean }): { close(): void };
}

function isWatchable(repository: SkillRepository): repository is SkillRepository & WatchableRepository {
  return typeof (repository as Partial<WatchableRepository>).watch === 'function';
}

/**
 * Calls `onChange` whenever the repository's own watch reports skills added, removed or changed,
 * or any file of a skill edited (FsSkillRepository watches its roots): `skills/list` gives each
 * file's digest, so a client holding a listing must hear about an edited script as well. Undefined when the repository cannot watch: skills
 * defined in code or on MCP servers change only when their owner says so.
 */
export function watchSkillChanges(
  repository: SkillRepository,
  onChange: () => Promise<void>,
  log: (line: string) => void,
): { close(): void } | undefined {
  if (!isWatchable(repository)) return undefined;
  return repository.watch(
    () => {
      onChange().catch((error: unknown) =>
        log(`skillbox mcp: telling clients the skills changed failed: ${(error as Error).message}`),
      );
    },
    {
      onError: (error) => log(`skillbox mcp: watching the skill roots failed: ${(error as Error).message}`),
      files: true,
    },
  );
}
