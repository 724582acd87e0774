import type { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import type { SkillChangeEvent } from '../../repository/fs-skill-watch.js';

/** One line saying what changed on disk, by skill name. */
export function describeSkillChange(event: SkillChangeEvent): string {
  const parts = [
    event.added.length > 0 ? `added ${event.added.join(', ')}` : undefined,
    event.removed.length > 0 ? `removed ${event.removed.join(', ')}` : undefined,
    event.changed.length > 0 ? `changed ${event.changed.join(', ')}` : undefined,
  ].filter((part) => part !== undefined);
  return `skillbox chat: skills changed on disk: ${parts.join('; ')} (the next turn sees them)\n`;
}

/**
 * `chat --watch`: the repository's own watch (recursive fs.watch of the roots, debounced, no
 * polling) re-scans after edits settle, which moves its generation, so the next turn's catalog,
 * `skill` enum and tools are built from the new skills. The user is told on standard error.
 */
export function watchChatSkills(repository: FsSkillRepository, print: (text: string) => void): { close(): void } {
  return repository.watch((event) => print(describeSkillChange(event)), {
    // Long enough that an editor's save (write, rename, chmod) is one change, short enough to be there by the next message.
    debounceMs: 200,
    onError: (error) =>
      print(
        `skillbox chat: re-reading the skill roots failed, the previous skills stay: ${(error as Error).message}\n`,
      ),
  });
}
