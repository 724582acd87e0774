export { createSkillMcpServer, defaultMcpCatalogBudget, type SkillMcpServer, type SkillMcpServerOptions } from './skill-mcp-server.js';
export { serveSkillsOverStdio, type StdioSkillServerOptions } from './stdio-server.js';
export { SkillMcpConfigError } from './errors.js';
