import { parseSkillMarkdown } from '../../format/parse-skill.js';
import { skillNameProblem } from '../../repository/skill-name-safety.js';
import type { FetchedFile, FetchedSkill } from '../skill-source.js';
import type { SourceErrorFactory } from './skill-source-error.js';

/** Folders that never hold a source's skills, as the `skills` CLI skips them too. */
const skippedFolders = new Set(['node_modules', '.git', 'dist', 'build', '__pycache__']);

const skillFileNames = ['SKILL.md', 'skill.md'];

export interface CollectSkillsOptions {
  /** The folder inside the tree to look in (`''` for the whole tree). */
  readonly subPath?: string;
  /** Keep only these skill names; a name that is not there is an error. */
  readonly skills?: readonly string[] | undefined;
  readonly fail: SourceErrorFactory;
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

function isInside(path: string, folder: string): boolean {
  return folder === '' || path === folder || path.startsWith(`${folder}/`);
}

/** Why a name cannot become an installed folder name, or undefined when it can. */
function folderNameProblem(name: string): string | undefined {
  const unsafe = skillNameProblem(name);
  if (unsafe !== undefined) return unsafe;
  if (name === '' || name === '.' || name === '..') return 'is empty or a dot name';
  if (/[/\\:]/.test(name)) return 'holds a path separator or colon';
  if ([...name].length > 64) return 'is longer than 64 characters';
  return undefined;
}

/**
 * Finds the skills in a checked file tree (paths already confined by the reader that produced it)
 * and returns each with its own files. A folder holding SKILL.md is a skill, and everything under it
 * belongs to it; when the selected folder itself holds SKILL.md it is the only skill, as with the
 * `skills` CLI. A skill is named by its frontmatter `name` (what the `skills` CLI installs it as),
 * its folder when that is missing.
 */
export function collectSkills(tree: readonly FetchedFile[], options: CollectSkillsOptions): FetchedSkill[] {
  const { fail } = options;
  const subPath = options.subPath ?? '';
  const files = tree.filter((file) => isInside(file.path, subPath) && file.path !== subPath);
  if (files.length === 0)
    throw fail('not-found', subPath === '' ? 'the source holds no files' : `the source has no folder "${subPath}"`);

  const skillFolders = new Set<string>();
  for (const file of files) {
    const segments = file.path.split('/');
    if (!skillFileNames.includes(segments.at(-1) as string)) continue;
    if (segments.slice(0, -1).some((segment) => skippedFolders.has(segment))) continue;
    skillFolders.add(parentOf(file.path));
  }
  // A folder inside another skill's folder is part of that skill (examples, templates), not a skill.
  const owners = [...skillFolders].sort((a, b) => a.length - b.length);
  const topLevel = owners.filter(
    (folder) => !owners.some((other) => other !== folder && other.length < folder.length && isInside(folder, other)),
  );
  const skillRoots = topLevel.includes(subPath) ? [subPath] : topLevel;

  const wanted = options.skills === undefined ? undefined : new Set(options.skills);
  const byName = new Map<string, FetchedSkill>();
  for (const folder of skillRoots) {
    const skillFiles = files
      .filter((file) => isInside(file.path, folder))
      .map((file) => ({ ...file, path: folder === '' ? file.path : file.path.slice(folder.length + 1) }));
    const markdown =
      skillFiles.find((file) => file.path === 'SKILL.md') ?? skillFiles.find((file) => file.path === 'skill.md');
    if (markdown === undefined) continue;
    const folderName = folder === '' ? undefined : (folder.split('/').at(-1) as string);
    let name: string;
    try {
      name = parseSkillMarkdown(markdown.bytes, {
        file: `${folder === '' ? '' : `${folder}/`}${markdown.path}`,
        ...(folderName === undefined ? {} : { folderName }),
      }).name;
    } catch (error) {
      // A broken skill among many is left out, as the `skills` CLI does; one the user asked for is an error.
      const asked = folderName !== undefined && wanted?.has(folderName);
      if (asked || skillRoots.length === 1)
        throw fail('refused', `${folder || 'the root'}: ${(error as Error).message}`, error);
      continue;
    }
    const problem = folderNameProblem(name);
    if (problem !== undefined) {
      if (wanted?.has(name) || skillRoots.length === 1)
        throw fail('refused', `the skill in "${folder || '.'}" has a name that ${problem}: ${JSON.stringify(name)}`);
      continue;
    }
    const earlier = byName.get(name);
    if (earlier !== undefined)
      throw fail(
        'refused',
        `two skills are named "${name}" ("${earlier.skillPath || '.'}" and "${folder || '.'}"); installing either would be a guess`,
      );
    byName.set(name, { name, skillPath: folder, files: skillFiles.sort((a, b) => a.path.localeCompare(b.path)) });
  }
  if (byName.size === 0)
    throw fail('not-found', `no skill (a folder with SKILL.md) in ${subPath === '' ? 'the source' : `"${subPath}"`}`);
  if (wanted === undefined) return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  const missing = [...wanted].filter((name) => !byName.has(name));
  if (missing.length > 0)
    throw fail(
      'not-found',
      `no skill named ${missing.map((name) => JSON.stringify(name)).join(', ')}; it has ${[...byName.keys()]
        .sort()
        .map((name) => JSON.stringify(name))
        .join(', ')}`,
    );
  return [...wanted].map((name) => byName.get(name) as FetchedSkill);
}
