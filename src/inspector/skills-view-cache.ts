import type { SkillRepository } from '../repository/types.js';
import type { SkillsView } from './inspector-views.js';

/**
 * The skills page's data, computed once per repository generation: building it gets every skill
 * (twice: the token report and the page each get it), validates each folder strictly and checks
 * requirements and locks, which for a library of 1,000 skills is the whole page load. It is kept
 * until `repository.generation()` moves.
 *
 * Before each answer the repository is listed: that is how a folder repository notices an edited
 * SKILL.md (one stat per skill) and moves its generation. What the generation does not follow (a
 * body edit that leaves name and description as they were, a new doc file, a new skill folder, a
 * lock or requirement that changed) is picked up by `rescan`, which re-scans the roots
 * (`refresh()`) and computes the page again. A repository without a generation is computed every
 * time, as before.
 */
export function createSkillsViewCache(
  repository: SkillRepository,
  compute: () => Promise<SkillsView>,
): (options?: { rescan?: boolean }) => Promise<SkillsView> {
  let held: { generation: number; view: Promise<SkillsView> } | undefined;
  return async (options = {}) => {
    if (options.rescan === true) await repository.refresh();
    else await repository.list();
    const generation = repository.generation?.();
    if (options.rescan !== true && held !== undefined && generation !== undefined && held.generation === generation)
      return held.view;
    const view = compute();
    // Two pages loading at once share one computation; a failed one is not kept.
    held = generation === undefined ? undefined : { generation, view };
    view.catch(() => {
      if (held?.view === view) held = undefined;
    });
    return view;
  };
}
