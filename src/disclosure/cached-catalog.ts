import type { SkillContext, SkillRepository, SkillSummary } from '../repository/types.js';
import { type CatalogOptions, type RenderedCatalog, renderCatalogParts } from './catalog.js';

/** The catalog of a repository, rendered once per change of the repository rather than once per model call. */
export interface CachedCatalog {
  /** What `renderCatalog` gives for `repository.list(context)` now. */
  render(context?: SkillContext): Promise<string>;
  /** `render` with what the renderer decided: whether the catalog was shortened and points to `skill_search`. */
  renderWithOutcome(context?: SkillContext): Promise<RenderedCatalog>;
}

interface Rendered {
  generation: number | undefined;
  /** The list it was rendered from; kept only for a repository without a generation, to compare. */
  listed: SkillSummary[] | undefined;
  outcome: RenderedCatalog;
}

/** Callers (contexts) remembered at once; an agent serving more users re-renders for the older ones. */
const rememberedContexts = 64;

/** A context as a cache key, or undefined when it cannot be one (a value JSON cannot hold). */
function contextKey(context: SkillContext | undefined): string | undefined {
  if (context === undefined) return '';
  try {
    return JSON.stringify(context);
  } catch {
    return undefined;
  }
}

function sameSummaries(left: readonly SkillSummary[], right: readonly SkillSummary[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) {
    const a = left[index]!;
    const b = right[index]!;
    if (
      a.name !== b.name ||
      a.description !== b.description ||
      a.path !== b.path ||
      a.modelInvocable !== b.modelInvocable
    )
      return false;
  }
  return true;
}

/**
 * Every model step shows the catalog, and a library can hold many thousands of skills: listing
 * them (a stat per skill for files on disk) and rendering them (with a budget, a search) each step
 * made a step's cost grow with the library. A repository with a `generation()` is re-listed and
 * re-rendered only when that number moved, so a step costs the same at any library size; one
 * without it is listed every time but re-rendered only when the list changed.
 */
export function createCachedCatalog(
  repository: SkillRepository,
  options: Omit<CatalogOptions, 'skills'>,
): CachedCatalog {
  const rendered = new Map<string, Rendered>();
  const renderWithOutcome = async (context: SkillContext | undefined): Promise<RenderedCatalog> => {
    const key = contextKey(context);
    const generation = repository.generation?.();
    const known = key === undefined ? undefined : rendered.get(key);
    if (known !== undefined && generation !== undefined && known.generation === generation) return known.outcome;
    const skills = await repository.list(context);
    if (
      known !== undefined &&
      generation === undefined &&
      known.listed !== undefined &&
      sameSummaries(known.listed, skills)
    )
      return known.outcome;
    const outcome = renderCatalogParts({ ...options, skills });
    if (key !== undefined) {
      rendered.delete(key);
      if (rendered.size >= rememberedContexts) rendered.delete(rendered.keys().next().value!);
      rendered.set(key, { generation, listed: generation === undefined ? skills : undefined, outcome });
    }
    return outcome;
  };
  return {
    renderWithOutcome,
    async render(context) {
      return (await renderWithOutcome(context)).text;
    },
  };
}

/** An integration's `catalog` option: `false` leaves the catalog out, an object says how it is rendered. */
export type CatalogOption = false | Pick<CatalogOptions, 'format' | 'budget' | 'guidance'>;

/**
 * The cached catalog an integration's `catalog` option asks for (none for `false`): its format,
 * budget and guidance over the integration's own `settings` (the tools it registered, ...).
 */
export function cachedCatalogOfOption(
  repository: SkillRepository,
  option: CatalogOption | undefined,
  settings: Omit<CatalogOptions, 'skills' | 'format' | 'budget' | 'guidance'>,
): CachedCatalog | undefined {
  if (option === false) return undefined;
  return createCachedCatalog(repository, {
    ...settings,
    ...(option?.format !== undefined ? { format: option.format } : {}),
    ...(option?.budget !== undefined ? { budget: option.budget } : {}),
    ...(option?.guidance !== undefined ? { guidance: option.guidance } : {}),
  });
}
