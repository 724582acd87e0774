// `skillbox/langchain`: skillbox's progressive disclosure as a LangChain v1 `createAgent`
// middleware, its state in the LangGraph state, and a deepagents backend that runs in skillbox's
// sandbox (docs/langchain.md). `langchain`, `@langchain/core`, `@langchain/langgraph` and
// `deepagents` load only here. Names are listed one by one (no `export *`).

export { emptySkillboxState, type SkillboxGraphState, skillboxStateField } from './graph-state.js';
export { createSandboxBackend, type SandboxBackendOptions } from './sandbox-backend.js';
export { createSkillMiddleware } from './skill-middleware.js';
export type { SkillCallRuntime, SkillMiddlewareOptions, SkillSessionOfCall } from './skill-middleware-options.js';
