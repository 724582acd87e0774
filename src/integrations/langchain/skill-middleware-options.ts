import type { ClientTool } from '@langchain/core/tools';
import { z } from 'zod';
import { evenWithOtherProblems, nonEmptyString } from '../../config/option-schemas.js';
import type { CatalogBudget, CatalogFormat } from '../../disclosure/catalog.js';
import type { LoadMode } from '../../disclosure/load-mode.js';
import type { MaterializationMode } from '../../disclosure/materialize-request.js';
import type { ModelInvocationOptions } from '../../disclosure/model-invocable-skills.js';
import type { SkillContext, SkillRepository } from '../../repository/types.js';
import type { ExecutionSetupOptions } from '../../workspace/tools/execution-setup.js';
import {
  disclosureOptionsShape,
  executionOptionRules,
  executionOptionsShape,
  skillRepositorySchema,
} from '../skill-integration-options-schema.js';

/** Who a call runs for: the session picks the workspace and scopes the tools' per-session state. */
export interface SkillSessionOfCall {
  sessionId: string;
  userId?: string;
  appName?: string;
  /** Visibility context (user, tenant, role) for the repository's filter. */
  skillContext?: SkillContext;
}

/** The parts of LangChain's runtime `session` may read: the run's `configurable` and the agent's `context`. */
export interface SkillCallRuntime {
  configurable?: Record<string, unknown>;
  context?: unknown;
}

/** Options of `createSkillMiddleware`. */
export interface SkillMiddlewareOptions extends ModelInvocationOptions, ExecutionSetupOptions {
  repository: SkillRepository;
  /**
   * LangChain tools that are offered to the model only while a loaded skill's `Tools:` section
   * names them (dynamic tool selection). Tools given to `createAgent` itself are always offered.
   */
  toolPool?: readonly ClientTool[];
  /** Where loaded skills go: `tool-result` (default, keeps the earlier prompt byte-identical) or `system`. */
  materialize?: MaterializationMode;
  /** `turn` (default), `once` or `session`. */
  loadMode?: LoadMode;
  /** Keep at most this many loaded skills, evicting the least recently touched. */
  maxLoadedSkills?: number;
  /** Your text about the skills, sent after the agent's system prompt and before the catalog. */
  instructions?: string;
  /** Catalog rendering; `false` leaves the catalog out. */
  catalog?: false | { format?: CatalogFormat; budget?: CatalogBudget; guidance?: string | false };
  /** Narrow the tools to the loaded skills' `allowed-tools`. */
  enforceAllowedTools?: boolean;
  allowedToolAliases?: Readonly<Record<string, readonly string[]>>;
  /** The agent's name in the disclosure state keys (default `assistant`, as createSkillAgent). */
  agentName?: string;
  /**
   * Who a call runs for. Default: the session is the run's `configurable.thread_id` (the thread a
   * checkpointer keeps), so a thread keeps its workspace across turns and processes. A run without
   * a thread gets a session of its own.
   */
  session?: (runtime: SkillCallRuntime) => SkillSessionOfCall;
}

/** The only check `createSkillMiddleware` runs: every option by name. */
export const skillMiddlewareOptionsSchema = z
  .looseObject(
    {
      repository: skillRepositorySchema,
      ...disclosureOptionsShape,
      ...executionOptionsShape,
      toolPool: z
        .array(z.looseObject({ name: nonEmptyString('must be a LangChain tool with a name') }), {
          error: 'must be an array of LangChain tools',
        })
        .optional(),
      instructions: z.string({ error: 'must be a string' }).optional(),
      agentName: nonEmptyString().optional(),
      session: z
        .custom((value) => typeof value === 'function', { error: 'must be a function (runtime) => session' })
        .optional(),
    },
    { error: 'must be an object' },
  )
  .superRefine(executionOptionRules, evenWithOtherProblems);
