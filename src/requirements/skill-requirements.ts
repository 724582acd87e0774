import { isPlainRecord } from '../format/is-plain-record.js';

/**
 * What a skill says it needs where its commands run, read from its frontmatter `metadata`
 * (docs/skill-requirements.md). Every list is "all of these" except `anyPrograms` ("at least one").
 */
export interface SkillRequirements {
  /** Programs that must be found on PATH. */
  programs: string[];
  /** Programs of which at least one must be found on PATH (e.g. `python3 python`). */
  anyPrograms: string[];
  /** Environment variables the command environment must set. */
  env: string[];
  /** Operating systems (`linux`, `darwin`, ...: Node's `process.platform` names) one of which must be the runtime's. */
  os: string[];
  /** The commands need network access. */
  network: boolean;
}

/** The requirements and the problems found reading them (each names the field). */
export interface RequirementsReading {
  /** Undefined when the skill declares none. */
  requirements: SkillRequirements | undefined;
  warnings: string[];
}

// Names go into a probe command run by a shell: only characters that cannot start an expansion,
// a redirection or a second command are accepted.
/** The program names a requirement may hold (and a probe command may carry). */
export const programName = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/;
const variableName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const osName = /^[a-z0-9]{2,16}$/;

function listOf(value: unknown): unknown[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value.split(/[\s,]+/).filter((item) => item !== '');
  return Array.isArray(value) ? value : [value];
}

function names(value: unknown, pattern: RegExp, field: string, warnings: string[]): string[] {
  const items = listOf(value);
  if (items === undefined) return [];
  const accepted: string[] = [];
  for (const item of items) {
    if (typeof item === 'string' && pattern.test(item)) {
      if (!accepted.includes(item)) accepted.push(item);
    } else warnings.push(`metadata ${field}: ${JSON.stringify(item)} is not a valid name; ignored`);
  }
  return accepted;
}

function flag(value: unknown, field: string, warnings: string[]): boolean {
  if (value === undefined || value === null) return false;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  warnings.push(`metadata ${field}: must be true or false; got ${JSON.stringify(value)}; ignored`);
  return false;
}

/**
 * Reads a skill's requirements from `metadata.requires` (a mapping: `bins`, `anyBins`, `env`, `os`,
 * `network`) or, for authors who keep `metadata` a map of strings as the specification asks, the
 * flat keys `requires-bins`, `requires-any-bins`, `requires-env`, `requires-os`,
 * `requires-network`. Lists are YAML lists or space/comma-separated strings. Invalid entries are
 * left out with a warning, never guessed at.
 */
export function readSkillRequirements(metadata: Record<string, unknown> | undefined): RequirementsReading {
  const warnings: string[] = [];
  if (metadata === undefined) return { requirements: undefined, warnings };
  const nested = metadata.requires;
  if (nested !== undefined && !isPlainRecord(nested)) {
    warnings.push('metadata requires: must be a mapping (bins, anyBins, env, os, network); ignored');
  }
  const block = isPlainRecord(nested) ? nested : {};
  const pick = (key: string, flat: string) => (block[key] !== undefined ? block[key] : metadata[flat]);
  const field = (key: string, flat: string) => (block[key] !== undefined ? `requires.${key}` : flat);
  const requirements: SkillRequirements = {
    programs: names(pick('bins', 'requires-bins'), programName, field('bins', 'requires-bins'), warnings),
    anyPrograms: names(
      pick('anyBins', 'requires-any-bins'),
      programName,
      field('anyBins', 'requires-any-bins'),
      warnings,
    ),
    env: names(pick('env', 'requires-env'), variableName, field('env', 'requires-env'), warnings),
    os: names(pick('os', 'requires-os'), osName, field('os', 'requires-os'), warnings),
    network: flag(pick('network', 'requires-network'), field('network', 'requires-network'), warnings),
  };
  const declared =
    requirements.programs.length + requirements.anyPrograms.length + requirements.env.length + requirements.os.length >
      0 || requirements.network;
  return { requirements: declared ? requirements : undefined, warnings };
}

/** The requirements as one line for people (`skillbox list`): "bins: ffmpeg; env: API_KEY; network". */
export function describeRequirements(requirements: SkillRequirements): string {
  const parts: string[] = [];
  if (requirements.programs.length > 0) parts.push(`bins: ${requirements.programs.join(' ')}`);
  if (requirements.anyPrograms.length > 0) parts.push(`any of: ${requirements.anyPrograms.join(' ')}`);
  if (requirements.env.length > 0) parts.push(`env: ${requirements.env.join(' ')}`);
  if (requirements.os.length > 0) parts.push(`os: ${requirements.os.join(' ')}`);
  if (requirements.network) parts.push('network');
  return parts.join('; ');
}
