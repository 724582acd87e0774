import { resolveOutputPattern } from './outputs/output-pattern.js';
import type { WorkspacePathContext } from './workspace-paths.js';

/**
 * Output patterns as written (`out/*.txt`, `$OUTPUT_DIR/**`, `workspace://out/a`, relative to
 * `cwd`) resolved to workspace-relative globs; a pattern that cannot be resolved is left out with a
 * warning saying why, so one bad pattern does not lose the others' files.
 */
export function resolveOutputPatterns(
  patterns: readonly string[],
  cwd: string,
  context: WorkspacePathContext,
): { normalized: string[]; warnings: string[] } {
  const warnings: string[] = [];
  const normalized: string[] = [];
  for (const pattern of patterns) {
    try {
      const resolved = resolveOutputPattern(pattern, cwd, context);
      if (resolved !== undefined) normalized.push(resolved);
    } catch (error) {
      warnings.push(`output pattern "${pattern}" ignored: ${(error as Error).message}`);
    }
  }
  return { normalized, warnings };
}
