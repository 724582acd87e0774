export { McpSkillLimitError, McpSkillServerError, McpSkillVerificationError } from './errors.js';
export { type HttpSkillServer, type HttpSkillServerOptions, serveSkillsOverHttp } from './http-server.js';
export type { SessionSlotStats } from './http-session-slots.js';
export type { McpSkillServer } from './mcp-skill-connection.js';
export {
  type McpSkillNameCollision,
  McpSkillRepository,
  type McpSkillRepositoryOptions,
} from './mcp-skill-repository.js';
export {
  createSkillMcpServer,
  defaultMcpCatalogBudget,
  type SkillMcpServer,
  type SkillMcpServerOptions,
} from './skill-mcp-server.js';
export {
  maxBytesPerSkill,
  maxFilesPerSkill,
  type SkillListingEntry,
  type SkillManifestFile,
  skillsExtensionId,
} from './skills-extension.js';
export { type StdioSkillServerOptions, serveSkillsOverStdio } from './stdio-server.js';
