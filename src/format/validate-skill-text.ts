import { decodeSkillText } from './decode-skill-text.js';
import { frontmatterProblems } from './frontmatter-rules.js';
import { isPlainRecord } from './is-plain-record.js';
import { parseStrictYaml } from './parse-strict-yaml.js';
import { splitFrontmatter } from './split-frontmatter.js';
import type { ValidationResult } from './validation-result.js';

/** Options of `validateSkillText`: the folder name the `name` field must match and the file name problems name. */
export interface ValidateSkillTextOptions {
  /** Name of the folder holding the SKILL.md; the skill's name must equal it (after NFKC). Unchecked when absent. */
  folderName?: string;
  /** Reported as the result's `path`. */
  file?: string;
}

/** The specification's advice: "Keep your main SKILL.md under 500 lines". */
const RECOMMENDED_MAX_BODY_LINES = 500;

function countLines(text: string): number {
  if (text === '') return 0;
  let lines = 1;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines += 1;
  return lines;
}

function adviceFor(frontmatter: Record<string, unknown>, body: string): string[] {
  const warnings: string[] = [];
  const metadata = frontmatter.metadata;
  if (metadata !== undefined && !isPlainRecord(metadata))
    warnings.push("Field 'metadata' should be a mapping from string keys to string values");
  else if (isPlainRecord(metadata)) {
    const nested = Object.keys(metadata).filter((key) => typeof metadata[key] !== 'string');
    if (nested.length > 0)
      warnings.push(`Field 'metadata' should map keys to string values; not a string: ${nested.join(', ')}`);
  }
  const allowedTools = frontmatter['allowed-tools'];
  if (allowedTools !== undefined && typeof allowedTools !== 'string') {
    warnings.push("Field 'allowed-tools' should be a space-separated string; some clients read only that form");
  }
  if (frontmatter.compatibility === '') warnings.push("Field 'compatibility' should be 1-500 characters when present");
  const bodyLines = countLines(body);
  if (bodyLines > RECOMMENDED_MAX_BODY_LINES) {
    warnings.push(
      `SKILL.md body has ${bodyLines} lines; the specification recommends under ${RECOMMENDED_MAX_BODY_LINES} (move detail into referenced files)`,
    );
  }
  return warnings;
}

/**
 * Validates one SKILL.md text strictly: the agentskills.io rules with the reference validator's
 * (skills-ref) exact messages. Unlike the lenient parser there is no colon fallback, every scalar
 * is a string, and flow collections are invalid YAML. Unlike skills-ref, a byte-order mark is
 * ignored (with a warning) and a `---` inside a value does not end the frontmatter.
 */
export function validateSkillText(
  input: string | Uint8Array,
  options: ValidateSkillTextOptions = {},
): ValidationResult {
  const path = options.file ?? '';
  const fail = (message: string, warnings: string[] = []): ValidationResult => ({
    path,
    valid: false,
    errors: [message],
    warnings,
  });
  const { text, replacedInvalidBytes } = decodeSkillText(input);
  if (replacedInvalidBytes) return fail('SKILL.md is not valid UTF-8');
  const warnings: string[] = [];
  if (text.charCodeAt(0) === 0xfeff)
    warnings.push('SKILL.md starts with a byte-order mark; some tools (skills-ref among them) reject it');

  const split = splitFrontmatter(text);
  if (split.kind === 'missing') return fail('SKILL.md must start with YAML frontmatter (---)', warnings);
  if (split.kind === 'unclosed') return fail('SKILL.md frontmatter not properly closed with ---', warnings);
  const yaml = parseStrictYaml(split.yaml);
  if (!yaml.ok)
    return fail(`Invalid YAML in frontmatter: ${yaml.message} (line ${yaml.line + split.yamlStartLine - 1})`, warnings);
  if (!isPlainRecord(yaml.value)) return fail('SKILL.md frontmatter must be a YAML mapping', warnings);

  const errors = frontmatterProblems(yaml.value, options.folderName);
  warnings.push(...adviceFor(yaml.value, split.body));
  return { path, valid: errors.length === 0, errors, warnings };
}
