import { SkillboxError } from '../../errors.js';

/** A skill tool, the instructions or the input filter ran in an SDK run that was not started with `skills.runOptions(session)`. */
export class AgentsRunNotBoundError extends SkillboxError {
  constructor(where: string) {
    super(
      'AGENTS_RUN_NOT_BOUND',
      `${where} runs outside a skill session: start the run with run(agent, input, { ...skills.runOptions(session) }) so the run context carries the session (its items, state and agent scoping)`,
    );
  }
}
