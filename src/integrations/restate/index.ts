export type { DurableTurnInput, DurableTurnResult } from './durable-turn.js';
export type { DurableTurnEvent } from './durable-turn-events.js';
export { lostRunMessage } from './journaled-tool-calls.js';
export { installPromiseWithResolvers } from './promise-with-resolvers.js';
export {
  type ServeSkillSessionsOptions,
  type SkillSessionServer,
  serveSkillSessions,
} from './serve-skill-sessions.js';
export { parseSessionObjectKey, type SessionObjectKeyParts, sessionObjectKey } from './session-object-key.js';
export {
  createSkillSessionClient,
  type FollowedTurnEvent,
  followTurn,
  type SkillSessionClient,
  type SkillSessionClientOptions,
} from './skill-session-client.js';
export {
  type ApproveInput,
  createSkillSessionObject,
  type SkillSessionObject,
  type SkillSessionObjectOptions,
} from './skill-session-object.js';
