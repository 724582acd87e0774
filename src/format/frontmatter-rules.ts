import { codePointLength } from './code-point-length.js';

export const MAX_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_COMPATIBILITY_LENGTH = 500;
/** The frontmatter fields the specification defines, sorted as the reference validator prints them. */
export const ALLOWED_FRONTMATTER_FIELDS: readonly string[] = [
  'allowed-tools',
  'compatibility',
  'description',
  'license',
  'metadata',
  'name',
];

/**
 * Fields outside the specification that lenient loading accepts without a warning: the ones
 * skillbox acts on (`disable-model-invocation` hides a skill from the model) and Claude Code's
 * documented skill fields, which skills written for Claude Code carry and skillbox keeps in
 * `frontmatter` for callers. Strict validation (`skillbox validate`) still reports them, as the
 * reference validator does.
 */
export const LENIENT_EXTRA_FRONTMATTER_FIELDS: readonly string[] = [
  'disable-model-invocation',
  'user-invocable',
  'argument-hint',
  'model',
];

// Python's str.isalnum(): letters and numbers of any script (the reference validator accepts `技能`).
const invalidNameCharacter = /[^\p{L}\p{N}-]/u;

const asciiOnly = /^[\x00-\x7f]*$/;

/** NFKC leaves ASCII text as it is; testing for that is several times quicker than normalising. */
function nfkc(text: string): string {
  return asciiOnly.test(text) ? text : text.normalize('NFKC');
}

/** A name as it is compared and reported: trimmed and NFKC-normalised. */
export function normalizeSkillName(name: string): string {
  return nfkc(name.trim());
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/*
 * Each check below returns the reference validator's (skills-ref) exact messages, so strict
 * validation reports them as errors and lenient loading can show the same words as warnings.
 */

function unexpectedFieldProblems(frontmatter: Record<string, unknown>, alsoAllowed: readonly string[]): string[] {
  const extra = Object.keys(frontmatter).filter(
    (key) => !ALLOWED_FRONTMATTER_FIELDS.includes(key) && !alsoAllowed.includes(key),
  );
  if (extra.length === 0) return [];
  const allowed = ALLOWED_FRONTMATTER_FIELDS.map((field) => `'${field}'`).join(', ');
  return [`Unexpected fields in frontmatter: ${extra.sort().join(', ')}. Only [${allowed}] are allowed.`];
}

/**
 * The specification's rules for a skill name (length, lowercase, letters, digits and single inner
 * hyphens), with the reference validator's messages; empty when the name keeps them. The name is
 * NFKC-normalised first, as the validator does, so a caller that must not accept a spelling NFKC
 * changes checks that separately.
 */
export function skillNameRuleProblems(name: string): string[] {
  return nameProblems(name);
}

function nameProblems(value: unknown, folderName?: string): string[] {
  if (!isNonEmptyString(value)) return ["Field 'name' must be a non-empty string"];
  const name = normalizeSkillName(value);
  const problems: string[] = [];
  const length = codePointLength(name);
  if (length > MAX_NAME_LENGTH)
    problems.push(`Skill name '${name}' exceeds ${MAX_NAME_LENGTH} character limit (${length} chars)`);
  if (name !== name.toLowerCase()) problems.push(`Skill name '${name}' must be lowercase`);
  if (name.startsWith('-') || name.endsWith('-')) problems.push('Skill name cannot start or end with a hyphen');
  if (name.includes('--')) problems.push('Skill name cannot contain consecutive hyphens');
  if (invalidNameCharacter.test(name)) {
    problems.push(`Skill name '${name}' contains invalid characters. Only letters, digits, and hyphens are allowed.`);
  }
  if (folderName !== undefined && nfkc(folderName) !== name) {
    problems.push(`Directory name '${folderName}' must match skill name '${name}'`);
  }
  return problems;
}

function descriptionProblems(value: unknown): string[] {
  if (!isNonEmptyString(value)) return ["Field 'description' must be a non-empty string"];
  // Not trimmed first: the reference validator counts a block scalar's trailing newline too.
  const length = codePointLength(value);
  return length > MAX_DESCRIPTION_LENGTH
    ? [`Description exceeds ${MAX_DESCRIPTION_LENGTH} character limit (${length} chars)`]
    : [];
}

function compatibilityProblems(value: unknown): string[] {
  if (typeof value !== 'string') return ["Field 'compatibility' must be a string"];
  const length = codePointLength(value);
  return length > MAX_COMPATIBILITY_LENGTH
    ? [`Compatibility exceeds ${MAX_COMPATIBILITY_LENGTH} character limit (${length} chars)`]
    : [];
}

/**
 * Every rule of the specification over one frontmatter mapping, in the reference validator's
 * order: unknown fields, name, description, compatibility. `folderName` is the skill folder's
 * name; without it the name-matches-folder rule is not checked. `alsoAllowed` names fields not
 * reported as unexpected (lenient loading passes LENIENT_EXTRA_FRONTMATTER_FIELDS).
 */
export function frontmatterProblems(
  frontmatter: Record<string, unknown>,
  folderName?: string,
  alsoAllowed: readonly string[] = [],
): string[] {
  const problems = unexpectedFieldProblems(frontmatter, alsoAllowed);
  if (!Object.hasOwn(frontmatter, 'name')) problems.push('Missing required field in frontmatter: name');
  else problems.push(...nameProblems(frontmatter.name, folderName));
  if (!Object.hasOwn(frontmatter, 'description')) problems.push('Missing required field in frontmatter: description');
  else problems.push(...descriptionProblems(frontmatter.description));
  if (Object.hasOwn(frontmatter, 'compatibility')) problems.push(...compatibilityProblems(frontmatter.compatibility));
  return problems;
}
