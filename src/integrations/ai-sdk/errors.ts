import { SkillboxError } from '../../errors.js';

/** A tool or `prepareStep` ran without the per-call context that says which session and state it serves. */
export class MissingSkillCallContextError extends SkillboxError {
  constructor(where: string) {
    super(
      'SKILL_CALL_CONTEXT_MISSING',
      `${where} needs a skill call context: spread toolkit.contextOptions(createSkillCallContext({ sessionId, state })) into generateText/streamText (it sets ai 7's toolsContext and ai 6's experimental_context), or give the adapter a context`,
    );
  }
}

/** The caller's abort signal ended a turn; what the turn had completed is stored with an error event. */
export class TurnAbortedError extends SkillboxError {
  constructor(reason?: unknown) {
    super(
      'SKILL_AGENT_TURN_ABORTED',
      `the turn was aborted${reason instanceof Error ? `: ${reason.message}` : typeof reason === 'string' ? `: ${reason}` : ''}`,
    );
  }
}
