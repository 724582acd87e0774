// `skillbox/mastra`: skillbox's repositories as a Mastra skill source and its workspaces as a
// Mastra workspace sandbox (docs/mastra.md). `@mastra/core` loads only here. Names are listed one
// by one (no `export *`).

export {
  createRepositorySkillSource,
  type RepositorySkillSourceOptions,
} from './repository-skill-source.js';
export { createWorkspaceSandbox, type WorkspaceSandboxOptions } from './workspace-sandbox.js';
