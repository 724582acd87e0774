import { maxOutputPatterns, type OutputLimits } from './output-collector.js';

/**
 * The declarative `outputs` of `skill_run`, in the snake_case the other Agent Skills runtimes use:
 * which files to collect, whether their text comes back inline, whether they are saved as
 * artifacts, and per-call caps that can only lower the configured ones.
 */
export interface OutputSpec {
  globs: string[];
  /** Return the text of the files in the result (default false: names, sizes and refs only). */
  inline?: boolean;
  /** Save every collected file as an artifact named `name_template` + its workspace path. */
  save?: boolean;
  /** Prefix of the artifact names `save` creates. */
  name_template?: string;
  max_files?: number;
  max_file_bytes?: number;
  max_total_bytes?: number;
}

/** What an `outputs` spec asks of one collection, within the caps the tools were built with. */
export interface ResolvedOutputSpec {
  patterns: string[];
  limits: OutputLimits;
  inline: boolean;
  save: boolean;
  namePrefix: string;
  /** A requested cap above the configured one, said once; the configured one applies. */
  warnings: string[];
}

/** Longest artifact name prefix: artifact names (prefix plus a workspace path) must stay short. */
export const maxArtifactPrefixLength = 100;

/**
 * Why `prefix` cannot start artifact names, or undefined when it can. A prefix is a label
 * (`report-2024-`), never a folder: separators, `.`/`..` and control characters are refused, so a
 * saved name cannot be made to look like it belongs to another path or scope.
 */
export function artifactPrefixProblem(prefix: string): string | undefined {
  if (prefix.length > maxArtifactPrefixLength) return `it is longer than ${maxArtifactPrefixLength} characters`;
  if (/[/\\]/.test(prefix)) return 'it contains a path separator; use a plain label such as "report-"';
  if (prefix.includes('..')) return 'it contains ".."';
  if (prefix === '.') return 'it is "."';
  // Control, format and separator characters would hide what a saved name really is.
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(prefix)) return 'it contains a control or invisible character';
  if (prefix.includes(':')) return 'it contains ":" (artifact://, workspace:// are references, not names)';
  return undefined;
}

/**
 * Checks an `outputs` spec and applies the configured caps: a larger request is lowered to the cap
 * with a warning (as a too-long timeout is), never honoured. Problems name the field; an empty list
 * means the spec is usable.
 */
export function resolveOutputSpec(
  spec: OutputSpec,
  caps: OutputLimits,
): { resolved?: ResolvedOutputSpec; problems: string[] } {
  const problems: string[] = [];
  const patterns = spec.globs.map((glob) => glob.trim()).filter((glob) => glob !== '');
  if (patterns.length === 0) problems.push('outputs.globs: give at least one glob, e.g. ["out/*.csv"]');
  if (patterns.length > maxOutputPatterns)
    problems.push(
      `outputs.globs: ${patterns.length} patterns; at most ${maxOutputPatterns} are taken, combine them with {a,b} or **`,
    );
  const namePrefix = spec.name_template ?? '';
  const prefixProblem = artifactPrefixProblem(namePrefix);
  if (prefixProblem !== undefined) problems.push(`outputs.name_template "${namePrefix}" refused: ${prefixProblem}`);
  const warnings: string[] = [];
  const cap = (field: keyof OutputLimits, specField: string, requested: number | undefined): number => {
    const configured = caps[field];
    if (requested === undefined) return configured;
    if (!Number.isInteger(requested) || requested <= 0) {
      problems.push(`outputs.${specField}: must be a positive whole number, got ${requested}`);
      return configured;
    }
    if (requested > configured) {
      warnings.push(`outputs.${specField} ${requested} capped to ${configured} (the configured limit)`);
      return configured;
    }
    return requested;
  };
  const limits: OutputLimits = {
    maxFiles: cap('maxFiles', 'max_files', spec.max_files),
    maxFileBytes: cap('maxFileBytes', 'max_file_bytes', spec.max_file_bytes),
    maxTotalBytes: cap('maxTotalBytes', 'max_total_bytes', spec.max_total_bytes),
  };
  if (problems.length > 0) return { problems };
  return {
    resolved: {
      patterns,
      limits,
      inline: spec.inline ?? false,
      save: spec.save ?? false,
      namePrefix,
      warnings,
    },
    problems,
  };
}
