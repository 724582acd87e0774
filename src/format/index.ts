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
