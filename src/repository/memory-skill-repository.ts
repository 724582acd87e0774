import { isPlainRecord } from '../format/is-plain-record.js';
import { modelInvocableFromFrontmatter } from '../format/model-invocation.js';
import { parseToolsSection } from '../format/parse-tools-section.js';
import { yamlLibrary } from '../format/yaml-library.js';
import type { BundledFileRule } from './bundled-file-rule.js';
import { normalizeBundledPath } from './bundled-path.js';
import { compareNames } from './compare-names.js';
import { createBundledFileRule } from './create-bundled-file-rule.js';
import { isDocumentPath, isSkillFilePath } from './document-files.js';
import { SkillDefinitionError, SkillFileNotFoundError, SkillFileReadError, SkillNotFoundError } from './errors.js';
import { skillNameProblem } from './skill-name-safety.js';
import type { RepositoryReport, Skill, SkillRepository, SkillSummary } from './types.js';

/** A skill defined in code. */
export interface MemorySkillDefinition {
  name: string;
  description: string;
  /** The Markdown instructions (what a SKILL.md holds after its frontmatter). */
  body: string;
  /**
   * Bundled files by `/`-separated path relative to the skill folder. Strings are stored as UTF-8.
   * Files with a doc extension (see docs/skill-repositories.md) are the skill's docs.
   */
  files?: Record<string, string | Uint8Array>;
  /** The tools the skill makes available; when absent, read from the body's `Tools:` section. */
  tools?: readonly string[];
  allowedTools?: readonly string[];
  license?: string;
  compatibility?: string;
  metadata?: Record<string, unknown>;
  /**
   * Keep the skill out of the model's view (written to its frontmatter as
   * `disable-model-invocation: true`); callers can still load it. `metadata.internal: true` does the same.
   */
  disableModelInvocation?: boolean;
}

/** Options of `createMemorySkillRepository`: the file names a skill may not bundle. */
export interface MemorySkillRepositoryOptions {
  /**
   * Name patterns of files that may not be defined (default `defaultDeniedFileNames`, the same rule
   * as on disk): a definition holding `.env` or `keys/id_rsa` throws at construction.
   */
  deniedFileNames?: readonly string[];
}

interface StoredSkill {
  skill: Skill;
  /** Every file, SKILL.md included, by canonical relative path. */
  files: Map<string, Buffer>;
  /** Every file path, sorted: what listFiles gives, and how readFile tells a folder from a missing file. */
  sortedPaths: string[];
}

function requireText(value: unknown, index: number, field: string, allowEmpty: boolean): string {
  if (typeof value !== 'string')
    throw new SkillDefinitionError(index, field, `must be a string, got ${describe(value)}`);
  if (!allowEmpty && value.trim() === '') throw new SkillDefinitionError(index, field, 'must not be empty');
  return value;
}

function requireTextList(value: unknown, index: number, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.trim() === '')) {
    throw new SkillDefinitionError(index, field, 'must be an array of non-empty strings');
  }
  return [...(value as string[])];
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/** The SKILL.md a filesystem skill with the same fields would hold, so readFile('SKILL.md') works. */
function renderSkillFile(skill: Skill): string {
  const frontmatter = yamlLibrary().stringify(skill.frontmatter, { lineWidth: 0 }).trimEnd();
  return `---\n${frontmatter}\n---\n${skill.body}`;
}

function storeDefinition(definition: MemorySkillDefinition, index: number, rule: BundledFileRule): StoredSkill {
  if (typeof definition !== 'object' || definition === null) {
    throw new SkillDefinitionError(index, '(definition)', `must be an object, got ${describe(definition)}`);
  }
  const name = requireText(definition.name, index, 'name', false).trim();
  const nameProblem = skillNameProblem(name);
  // The name goes into the model's catalog on one line; a line break there would add lines of its own.
  if (nameProblem !== undefined)
    throw new SkillDefinitionError(index, 'name', `${nameProblem}; a skill name is one line of printable text`);
  const description = requireText(definition.description, index, 'description', false).trim();
  const body = requireText(definition.body, index, 'body', true);
  const tools =
    definition.tools === undefined ? parseToolsSection(body) : requireTextList(definition.tools, index, 'tools');
  const allowedTools = requireTextList(definition.allowedTools, index, 'allowedTools');
  const license =
    definition.license === undefined ? undefined : requireText(definition.license, index, 'license', false);
  const compatibility =
    definition.compatibility === undefined
      ? undefined
      : requireText(definition.compatibility, index, 'compatibility', false);
  const metadata = definition.metadata;
  if (metadata !== undefined && !isPlainRecord(metadata)) {
    throw new SkillDefinitionError(index, 'metadata', `must be an object, got ${describe(metadata)}`);
  }
  const disableModelInvocation = definition.disableModelInvocation;
  if (disableModelInvocation !== undefined && typeof disableModelInvocation !== 'boolean') {
    throw new SkillDefinitionError(
      index,
      'disableModelInvocation',
      `must be a boolean, got ${describe(disableModelInvocation)}`,
    );
  }
  const given = definition.files ?? {};
  if (!isPlainRecord(given)) {
    throw new SkillDefinitionError(index, 'files', `must be an object of path to content, got ${describe(given)}`);
  }

  const files = new Map<string, Buffer>();
  for (const [rawPath, content] of Object.entries(given)) {
    let path: string;
    try {
      path = normalizeBundledPath(name, rawPath);
    } catch (error) {
      throw new SkillDefinitionError(index, `files["${rawPath}"]`, (error as Error).message);
    }
    const refusal = rule.refusalOf(path);
    // Refused here rather than hidden later: the code that defined the file should hear about it.
    if (refusal !== undefined)
      throw new SkillDefinitionError(index, `files["${rawPath}"]`, `would never be served: ${refusal}`);
    if (isSkillFilePath(path)) {
      throw new SkillDefinitionError(
        index,
        `files["${rawPath}"]`,
        'is generated from name, description and body; do not give it',
      );
    }
    if (files.has(path))
      throw new SkillDefinitionError(index, `files["${rawPath}"]`, `names the same file as another entry ("${path}")`);
    if (typeof content === 'string') files.set(path, Buffer.from(content, 'utf8'));
    else if (content instanceof Uint8Array) files.set(path, Buffer.from(content));
    else
      throw new SkillDefinitionError(
        index,
        `files["${rawPath}"]`,
        `must be a string or Uint8Array, got ${describe(content)}`,
      );
  }
  for (const path of files.keys()) {
    // A path that is both a file and a folder of another file cannot exist on disk either.
    const segments = path.split('/');
    for (let depth = 1; depth < segments.length; depth += 1) {
      const folder = segments.slice(0, depth).join('/');
      if (files.has(folder))
        throw new SkillDefinitionError(index, `files["${folder}"]`, `is a file but "${path}" needs it to be a folder`);
    }
  }

  const frontmatter: Record<string, unknown> = { name, description };
  if (license !== undefined) frontmatter.license = license;
  if (compatibility !== undefined) frontmatter.compatibility = compatibility;
  if (metadata !== undefined) frontmatter.metadata = structuredClone(metadata);
  if (allowedTools.length > 0) frontmatter['allowed-tools'] = allowedTools.join(' ');
  if (disableModelInvocation === true) frontmatter['disable-model-invocation'] = true;
  const modelInvocable = modelInvocableFromFrontmatter(frontmatter);

  const skill: Skill = {
    name,
    description,
    body,
    docs: [...files.keys()].filter(isDocumentPath).sort(compareNames),
    tools,
    allowedTools,
    frontmatter,
    warnings: [],
    ...(license === undefined ? {} : { license }),
    ...(compatibility === undefined ? {} : { compatibility }),
    ...(metadata === undefined ? {} : { metadata: structuredClone(metadata) }),
    ...(modelInvocable === undefined ? {} : { modelInvocable }),
  };
  files.set('SKILL.md', Buffer.from(renderSkillFile(skill), 'utf8'));
  return { skill, files, sortedPaths: [...files.keys()].sort(compareNames) };
}

function copySkill(skill: Skill): Skill {
  return structuredClone(skill);
}

/**
 * Skills defined in code. Definitions are validated and copied at construction, so later changes
 * to the caller's objects do not leak in, and callers get copies they may change freely.
 */
export class MemorySkillRepository implements SkillRepository {
  readonly #skills: Map<string, StoredSkill>;

  constructor(definitions: readonly MemorySkillDefinition[], options: MemorySkillRepositoryOptions = {}) {
    const rule = createBundledFileRule(options.deniedFileNames, 'deniedFileNames', 'createMemorySkillRepository');
    if (!Array.isArray(definitions)) {
      throw new SkillDefinitionError(
        0,
        '(definitions)',
        `must be an array of skill definitions, got ${describe(definitions)}`,
      );
    }
    this.#skills = new Map();
    definitions.forEach((definition, index) => {
      const stored = storeDefinition(definition, index, rule);
      if (this.#skills.has(stored.skill.name)) {
        throw new SkillDefinitionError(
          index,
          'name',
          `"${stored.skill.name}" is already used by an earlier definition`,
        );
      }
      this.#skills.set(stored.skill.name, stored);
    });
  }

  #find(name: string): StoredSkill {
    const stored = this.#skills.get(name);
    if (!stored) throw new SkillNotFoundError(name);
    return stored;
  }

  async list(): Promise<SkillSummary[]> {
    return [...this.#skills.values()]
      .map(({ skill }) => ({
        name: skill.name,
        description: skill.description,
        ...(skill.modelInvocable === undefined ? {} : { modelInvocable: skill.modelInvocable }),
      }))
      .sort((left, right) => compareNames(left.name, right.name));
  }

  async get(name: string): Promise<Skill> {
    return copySkill(this.#find(name).skill);
  }

  async listFiles(name: string): Promise<string[]> {
    return [...this.#find(name).sortedPaths];
  }

  async readFile(name: string, relativePath: string): Promise<Buffer> {
    const stored = this.#find(name);
    const path = normalizeBundledPath(name, relativePath);
    const content = stored.files.get(path);
    if (!content) {
      const prefix = `${path}/`;
      if (stored.sortedPaths.some((file) => file.startsWith(prefix))) {
        throw new SkillFileReadError(name, path, 'folder', 'it is a folder, not a file');
      }
      throw new SkillFileNotFoundError(name, path);
    }
    return Buffer.from(content);
  }

  async report(): Promise<RepositoryReport> {
    return { skipped: [], shadowed: [], warnings: [] };
  }

  /** Nothing to re-read: the skills are fixed at construction. */
  async refresh(): Promise<void> {}

  /** Always 0: the skills are fixed at construction. */
  generation(): number {
    return 0;
  }
}

/** A repository of skills defined in code, checked like skills read from disk. */
export function createMemorySkillRepository(
  definitions: readonly MemorySkillDefinition[],
  options: MemorySkillRepositoryOptions = {},
): MemorySkillRepository {
  return new MemorySkillRepository(definitions, options);
}
