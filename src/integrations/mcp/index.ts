export { SkillMcpConfigError } from './errors.js';
export {
  createSkillMcpServer,
  defaultMcpCatalogBudget,
  type SkillMcpServer,
  type SkillMcpServerOptions,
} from './skill-mcp-server.js';
export { type StdioSkillServerOptions, serveSkillsOverStdio } from './stdio-server.js';
