import type { Skill, SkillContext, SkillRepository } from '../repository/types.js';
import type { LoadedSkill } from './loaded-skills.js';
import { resolveSelection } from './selection.js';

/** The first line of every loaded-skill block; also how compaction and tests find one. */
export function loadedMarker(name: string): string {
  return `[Loaded] ${name}`;
}

export const loadedContextHeader = 'Loaded skill context:';

/**
 * One loaded skill as the model reads it:
 *
 *     [Loaded] <name>
 *
 *     <body>
 *
 *     Docs loaded: a.md, b.md        (or "none")
 *     Tools selected: x, y           (only for skills with a Tools: section)
 *
 *     [Doc] a.md
 *
 *     <content of a.md>
 *
 * Docs follow the selection order (`*`: the repository's order). A selected doc that no longer
 * exists is named on a `Docs not found:` line rather than dropped silently.
 */
export async function renderLoadedSkill(
  skill: Skill,
  loaded: LoadedSkill,
  repository: SkillRepository,
  skillContext?: SkillContext,
): Promise<string> {
  const docs = resolveSelection(loaded.docs, skill.docs);
  const found: { path: string; content: string }[] = [];
  const missing: string[] = [];
  for (const path of docs) {
    if (!skill.docs.includes(path)) {
      missing.push(path);
      continue;
    }
    try {
      found.push({ path, content: (await repository.readFile(skill.name, path, skillContext)).toString('utf8') });
    } catch {
      missing.push(path);
    }
  }
  const sections = [loadedMarker(skill.name)];
  const body = skill.body.trim();
  if (body !== '') sections.push(body);
  const summary = [`Docs loaded: ${found.length === 0 ? 'none' : found.map((doc) => doc.path).join(', ')}`];
  if (missing.length > 0) summary.push(`Docs not found: ${missing.join(', ')}`);
  if (skill.tools.length > 0) {
    const tools = resolveSelection(loaded.tools, skill.tools);
    summary.push(`Tools selected: ${tools.length === 0 ? 'none' : tools.join(', ')}`);
  }
  sections.push(summary.join('\n'));
  for (const doc of found) {
    sections.push(`[Doc] ${doc.path}`);
    const content = doc.content.trim();
    if (content !== '') sections.push(content);
  }
  return sections.join('\n\n');
}
