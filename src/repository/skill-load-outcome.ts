import { SkillParseError } from '../format/errors.js';
import { normalizeSkillName } from '../format/frontmatter-rules.js';
import type { DeferredSkillParse } from '../format/parse-skill-deferring-body.js';
import type { LoadOutcome } from './fs-skill-catalog-view.js';
import { escapeUnsafeCharacters, skillNameProblem } from './skill-name-safety.js';

// Why a SKILL.md found by a scan did not become a skill, in the words report() and errors use, and
// the name check every parsed skill passes before it can enter a catalog.

/** Why a SKILL.md that is there could not be read, for `report()` and errors. */
export function readErrorReason(code: string, detail: string | undefined): string {
  switch (code) {
    case 'ELOOP':
      return 'it is a link now, which is not followed (refresh() judges it as a scan does), or a link on its path loops';
    case 'LINK_LEADS_OUT':
      return `it is a link that leads out of the roots (to ${detail ?? 'an unknown place'})`;
    case 'FOLDER_MOVED':
      return folderMovedReason(detail ?? 'another place');
    case 'CHANGED_WHILE_READ':
    case 'SETTLING':
      return 'it changed while it was read';
    case 'EACCES':
    case 'EPERM':
      return `cannot read the file: permission denied (${code})`;
    default:
      return `cannot read the file: ${code}`;
  }
}

/**
 * A skill folder (or a folder above it) swapped for a link after the scan leads elsewhere: nothing
 * is read through it until a scan has judged the link.
 */
export function folderMovedReason(now: string): string {
  return `the skill folder now leads to ${now}, not where the scan found it (refresh() re-scans)`;
}

/** The reason a SKILL.md could not be read or parsed, from the error that said so. */
export function reasonOf(error: unknown): string {
  if (error instanceof SkillParseError)
    return error.line === undefined ? error.reason : `line ${error.line}: ${error.reason}`;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined) return `cannot read the file: ${code}`;
  return `cannot be parsed: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * A parsed skill whose name can go into a catalog. A frontmatter name holding a line break or other
 * control character would write extra lines into the model's catalog, so it is replaced by the
 * folder name with a warning naming the file; when the folder name is not usable either, the skill
 * is skipped.
 */
export function withSafeName(parsed: DeferredSkillParse, file: string, folderName: string): LoadOutcome {
  const problem = skillNameProblem(parsed.name);
  if (problem === undefined) return { parsed };
  const shown = `"${escapeUnsafeCharacters(parsed.name)}"`;
  const fallback = normalizeSkillName(folderName);
  const fallbackProblem = fallback === '' ? 'is empty' : skillNameProblem(fallback);
  if (fallbackProblem !== undefined) {
    return {
      reason: `the name ${shown} ${problem}, and the folder name "${escapeUnsafeCharacters(folderName)}" ${fallbackProblem}`,
    };
  }
  return {
    parsed: parsed.renamed(
      fallback,
      `${file}: the frontmatter name ${shown} ${problem}, so the folder name "${fallback}" is used instead`,
      escapeUnsafeCharacters,
    ),
  };
}
