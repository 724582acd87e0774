// `skillbox/openai-agents`: skills for the OpenAI Agents SDK (`@openai/agents`, an optional peer
// loaded only by this entry). Names are listed one by one; api/skillbox-openai-agents.api.md records them.

export {
  type AgentSkills,
  type AgentSkillsOptions,
  createAgentSkills,
  type SkillAgentParts,
  type SkillRunOptions,
} from './agent-skills.js';
export { AgentsSkillSession } from './agents-skill-session.js';
export { AgentsRunNotBoundError } from './errors.js';
export type { AnyFunctionTool } from './function-tool-adapter.js';
