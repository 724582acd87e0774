export { SkillParseError } from './errors.js';
export { parseSkillMarkdown } from './parse-skill.js';
export { splitFrontmatter, type FrontmatterSplit } from './split-frontmatter.js';
export { parseToolsSection } from './parse-tools-section.js';
export { parseAllowedTools } from './parse-allowed-tools.js';
export { decodeSkillText, normalizeSkillText, type DecodedSkillText } from './decode-skill-text.js';
export { codePointLength } from './code-point-length.js';
export {
  ALLOWED_FRONTMATTER_FIELDS,
  MAX_COMPATIBILITY_LENGTH,
  MAX_DESCRIPTION_LENGTH,
  MAX_NAME_LENGTH,
  frontmatterProblems,
  normalizeSkillName,
} from './frontmatter-rules.js';
export type { ValidationResult } from './validation-result.js';
export { validateSkillText, type ValidateSkillTextOptions } from './validate-skill-text.js';
export { validateSkillDirectory } from './validate-skill-directory.js';
export { findSkillMarkdown, SKILL_FILE_NAMES } from './find-skill-markdown.js';
export { parseStrictYaml, type StrictYamlResult } from './parse-strict-yaml.js';
export { parseSkillDirectory } from './parse-skill-directory.js';
