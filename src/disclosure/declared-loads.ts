import type { Skill, SkillContext, SkillRepository } from '../repository/types.js';
import { mergeDeltas, overlayState, type StateDelta, type StateReader } from '../state/state-delta.js';
import { SkillLoadRequestError, SkillUnavailableError } from './errors.js';
import { parseMaxLoadedSkills } from './load-mode.js';
import { loadSkill } from './skill-transitions.js';

/** A skill the caller loads for the model, before the first request of a turn. */
export interface DeclaredSkillLoad {
  name: string;
  /** Docs to select (paths relative to the skill folder); replaces the current selection. */
  docs?: readonly string[];
  /** Select every doc; cannot be combined with `docs`. */
  includeAllDocs?: boolean;
}

/** A declaration after trimming and coalescing. */
export interface NormalizedSkillLoad {
  name: string;
  docs: string[];
  includeAllDocs: boolean;
}

/** Input of `applyDeclaredLoads`: the agent, the repository and the skills a caller loads up front. */
export interface DeclaredLoadsOptions {
  agentName: string;
  repository: SkillRepository | undefined;
  loads: readonly DeclaredSkillLoad[];
  maxLoadedSkills?: number;
  skillContext?: SkillContext;
}

function normalizeOne(load: DeclaredSkillLoad): NormalizedSkillLoad {
  const name = typeof load?.name === 'string' ? load.name.trim() : '';
  if (name === '') throw new SkillLoadRequestError('skill name is required');
  const rawDocs = load.docs ?? [];
  if (!Array.isArray(rawDocs)) throw new SkillLoadRequestError(`docs of skill "${name}" must be an array of paths`);
  const includeAllDocs = load.includeAllDocs === true;
  if (rawDocs.length > 0 && includeAllDocs)
    throw new SkillLoadRequestError(`skill "${name}" sets both docs and includeAllDocs`);
  const docs: string[] = [];
  for (const raw of rawDocs) {
    const doc = typeof raw === 'string' ? raw.trim() : '';
    if (doc === '' || doc === 'SKILL.md')
      throw new SkillLoadRequestError(`invalid document ${JSON.stringify(raw)} for skill "${name}"`);
    if (docs.includes(doc)) throw new SkillLoadRequestError(`duplicate document "${doc}" for skill "${name}"`);
    docs.push(doc);
  }
  return { name, docs, includeAllDocs };
}

function sameDocSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((doc) => b.includes(doc));
}

/**
 * Trims declarations and merges equivalent ones for the same skill (same doc set in any order and
 * the same includeAllDocs); the first declaration's doc order wins. Throws SkillLoadRequestError on
 * the first malformed or conflicting declaration.
 */
export function normalizeDeclaredLoads(
  loads: readonly DeclaredSkillLoad[],
  maxLoadedSkills?: number,
): NormalizedSkillLoad[] {
  if (!Array.isArray(loads)) throw new SkillLoadRequestError('loads must be an array');
  const limit = parseMaxLoadedSkills(maxLoadedSkills, 'maxLoadedSkills', 'applyDeclaredLoads');
  const result: NormalizedSkillLoad[] = [];
  for (const load of loads) {
    const normalized = normalizeOne(load);
    const earlier = result.find((item) => item.name === normalized.name);
    if (earlier === undefined) {
      result.push(normalized);
      continue;
    }
    if (earlier.includeAllDocs !== normalized.includeAllDocs || !sameDocSet(earlier.docs, normalized.docs)) {
      throw new SkillLoadRequestError(`conflicting declarations for skill "${normalized.name}"`);
    }
  }
  if (limit !== undefined && result.length > limit) {
    throw new SkillLoadRequestError(`requested ${result.length} skills exceeds maximum ${limit}`);
  }
  return result;
}

/**
 * Checks every declaration against what the repository shows this caller (a hidden skill is an
 * unavailable one) and returns the validated skills. Nothing is returned unless all are valid.
 */
export async function validateDeclaredLoads(
  options: DeclaredLoadsOptions,
): Promise<{ loads: NormalizedSkillLoad[]; skills: Skill[] }> {
  const loads = normalizeDeclaredLoads(options.loads, options.maxLoadedSkills);
  if (loads.length === 0) return { loads, skills: [] };
  const repository = options.repository;
  if (repository === undefined) throw new SkillUnavailableError(loads[0]!.name, 'no skill repository is configured');
  const visible = new Set((await repository.list(options.skillContext)).map((summary) => summary.name));
  const skills: Skill[] = [];
  for (const load of loads) {
    if (!visible.has(load.name)) throw new SkillUnavailableError(load.name, `skill "${load.name}"`);
    let skill: Skill;
    try {
      skill = await repository.get(load.name, options.skillContext);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new SkillUnavailableError(load.name, `load skill "${load.name}": ${why}`, { cause: error });
    }
    for (const doc of load.docs) {
      if (!skill.docs.includes(doc))
        throw new SkillUnavailableError(load.name, `document "${doc}" for skill "${load.name}"`);
    }
    skills.push(skill);
  }
  return { loads, skills };
}

/**
 * Validates the declarations as one batch and returns the delta that loads them all, in the order
 * declared (the last declared is the most recently touched). Throws SkillLoadRequestError or
 * SkillUnavailableError and returns no delta when any declaration is invalid.
 *
 * In `turn` mode pass the state as it is after `beginTurn` (`overlayState(state, resetDelta)`) and
 * commit `mergeDeltas(resetDelta, result)`, so the reset and the loads land together.
 */
export async function applyDeclaredLoads(state: StateReader, options: DeclaredLoadsOptions): Promise<StateDelta> {
  const { loads } = await validateDeclaredLoads(options);
  let delta: StateDelta = {};
  for (const load of loads) {
    const step = loadSkill(overlayState(state, delta), {
      agentName: options.agentName,
      skill: load.name,
      docs: load.docs,
      includeAllDocs: load.includeAllDocs,
      ...(options.maxLoadedSkills === undefined ? {} : { maxLoadedSkills: options.maxLoadedSkills }),
    });
    delta = mergeDeltas(delta, step);
  }
  return delta;
}
