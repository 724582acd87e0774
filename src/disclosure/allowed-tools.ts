import { executionToolNames, workspaceFileToolNames } from '../tools/tool-names.js';

/**
 * `allowed-tools` enforcement. Every peer parses the field and then ignores it; here, when the
 * option is on and a loaded skill declares it, tools outside the union of the loaded skills'
 * allowed tools are not active. The disclosure tools (skill_load, skill_read, ...) are never
 * restricted, or the model could not load the next skill; the execution tools and the pool tools are.
 */

/** Claude Code spellings in real skills mapped to this library's tools. */
export const defaultAllowedToolAliases: Readonly<Record<string, readonly string[]>> = {
  Bash: executionToolNames,
  Read: ['workspace_read'],
  Write: ['workspace_write'],
  Edit: ['workspace_edit'],
  MultiEdit: ['workspace_edit'],
  Glob: ['workspace_glob'],
  Grep: ['workspace_grep'],
  LS: ['workspace_list'],
};

// Every execution and file tool is restricted: one added to tool-names.ts is restricted without an edit here.
const restrictedBuiltins: ReadonlySet<string> = new Set([...executionToolNames, ...workspaceFileToolNames]);

/** `Bash(git:*)` grants `Bash`: argument patterns are about commands, which the command policy of the workspace governs. */
function entryName(entry: string): string {
  const trimmed = entry.trim();
  const open = trimmed.indexOf('(');
  return open > 0 ? trimmed.slice(0, open).trim() : trimmed;
}

/** The tool names one skill's `allowed-tools` grants. */
export function grantedToolNames(
  allowedTools: readonly string[],
  aliases: Readonly<Record<string, readonly string[]>> = defaultAllowedToolAliases,
): Set<string> {
  const granted = new Set<string>();
  for (const entry of allowedTools) {
    const name = entryName(entry);
    if (name === '') continue;
    granted.add(name);
    for (const alias of aliases[name] ?? []) granted.add(alias);
  }
  return granted;
}

/**
 * Narrows candidate tool names to what the loaded skills allow. Skills that do not declare
 * `allowed-tools` impose nothing; when none declares it, nothing is narrowed.
 */
export function enforceAllowedTools(options: {
  candidates: readonly string[];
  /** Tool names the disclosure layer needs; never restricted. */
  disclosureTools: readonly string[];
  loadedSkills: ReadonlyArray<{ name: string; allowedTools: readonly string[] }>;
  aliases?: Readonly<Record<string, readonly string[]>>;
}): { active: string[]; withheld: string[] } {
  const declaring = options.loadedSkills.filter((skill) => skill.allowedTools.length > 0);
  if (declaring.length === 0) return { active: [...options.candidates], withheld: [] };
  const granted = new Set<string>();
  for (const skill of declaring)
    for (const name of grantedToolNames(skill.allowedTools, options.aliases)) granted.add(name);
  const exempt = new Set(options.disclosureTools.filter((name) => !restrictedBuiltins.has(name)));
  const active: string[] = [];
  const withheld: string[] = [];
  for (const name of options.candidates) (exempt.has(name) || granted.has(name) ? active : withheld).push(name);
  return { active, withheld };
}
