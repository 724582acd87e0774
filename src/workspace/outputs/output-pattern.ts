import { WorkspacePathError } from '../errors.js';
import { toWorkspaceRelative, type WorkspacePathContext, workspaceFolders } from '../workspace-paths.js';
import { escapeGlob } from './glob-pattern.js';

/** Pieces that make a `/`-separated piece of a pattern a glob rather than a name. */
const globSyntax = /[*?[{\\]/;

const topLevelNames = new Set<string>([
  workspaceFolders.skills,
  workspaceFolders.work,
  workspaceFolders.out,
  workspaceFolders.runs,
]);

/**
 * Turns an output pattern as the model wrote it (`out/*.txt`, `$OUTPUT_DIR/**`, `${WORK_DIR}/x`,
 * `workspace://out/a`, an absolute path inside the workspace, or a path relative to `cwd` when it
 * does not start with a workspace folder) into a glob relative to the workspace root.
 *
 * Only the part before the first wildcard is a path: it is resolved like any path the model gives
 * (variables, absolute paths, `..` that must not climb out) and then escaped, so a folder named
 * `a*b` is that folder. The rest is glob syntax kept as written: `\` escapes (it is not a
 * separator) and a trailing `/` survives, which path normalisation would both have destroyed.
 * Returns undefined for a blank pattern; throws WorkspacePathError naming the pattern.
 */
export function resolveOutputPattern(pattern: string, cwd: string, context: WorkspacePathContext): string | undefined {
  const trimmed = pattern.trim();
  if (trimmed === '') return undefined;
  const pieces = trimmed.split('/');
  const firstGlob = pieces.findIndex((piece) => globSyntax.test(piece));
  const first = trimmed.replace(/^workspace:\/\//, '').split('/')[0] ?? '';
  const workspaceRooted =
    first.startsWith('$') || trimmed.startsWith('/') || trimmed.startsWith('workspace://') || topLevelNames.has(first);
  const base = workspaceRooted ? '' : cwd;
  if (firstGlob === -1) return escapeGlob(toWorkspaceRelative(trimmed, base, context));
  let prefix = pieces.slice(0, firstGlob).join('/');
  if (prefix === '' && trimmed.startsWith('/')) prefix = '/';
  const rest = pieces.slice(firstGlob).filter((piece) => piece !== '.');
  if (rest.some((piece) => piece === '..')) {
    throw new WorkspacePathError(
      pattern,
      '".." after a wildcard is not supported; put the folder before the wildcards (out/*.txt, not out/*/../*.txt)',
    );
  }
  const resolvedPrefix = escapeGlob(toWorkspaceRelative(prefix, base, context));
  const glob = rest.join('/');
  return resolvedPrefix === '' ? glob : `${resolvedPrefix}/${glob}`;
}
