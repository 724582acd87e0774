import type { PrepareStepFunction, Tool } from 'ai';
import type { ApprovalOptions } from '../../approvals/approval-types.js';
import { validateOptions } from '../../config/validate-options.js';
import { includesNonModelInvocable } from '../../disclosure/model-invocable-skills.js';
import type { SkillRepository } from '../../repository/types.js';
import { gateRepository, type UnmetRequirementsMode } from '../../requirements/gated-repository.js';
import {
  createCheckedSkillTools,
  integrationSkillToolProfile,
  type SkillToolProfile,
} from '../../tools/create-skill-tools.js';
import {
  type ExecutionSetup,
  type ExecutionSetupOptions,
  executionSetup,
} from '../../workspace/tools/execution-setup.js';
import { requirementCheckerFor } from '../../workspace/tools/requirement-gate.js';
import type { WorkspaceManager } from '../../workspace/workspace-manager.js';
import {
  contextOfStep,
  conversationOfStep,
  type SkillContextCallOptions,
  skillContextCallOptions,
} from './ai-sdk-versions.js';
import { deniedApprovalEvents } from './sdk-approval-denials.js';
import { skillToolkitOptionsSchema } from './skill-agent-options-schema.js';
import { resolveSkillCallContext, type SkillCallContext } from './skill-call-context.js';
import { buildSkillPrepareStep, type SkillPrepareStepOptions } from './skill-prepare-step.js';
import { toAiSdkTools } from './tool-adapter.js';

/** Options of `createSkillToolkit`: the repository, the tool profile, execution tools and the `prepareStep` options. */
export interface SkillToolkitOptions
  extends Omit<SkillPrepareStepOptions, 'skillToolNames' | 'repository'>,
    ExecutionSetupOptions {
  /** Where skills come from. */
  repository?: SkillRepository;
  /**
   * `knowledge` (default without execution tools), `full` (default with them) or exact tool names.
   * With a tool pool, `knowledge` also registers skill_list_tools and skill_select_tools.
   */
  profile?: SkillToolProfile | readonly string[];
  /**
   * The names the callers of this toolkit can see: the `skill` input becomes an enum of them (a
   * plain string when absent, empty or above `maxSkillEnumValues`). Callers that see different
   * skills need different toolkits: see `createVisibleSkillToolkits`.
   */
  skillNames?: readonly string[];
  /** skill_search also indexes SKILL.md bodies (default false: names and descriptions). */
  searchBodies?: boolean;
  /**
   * With a runtime or workspaces: what the model is shown of a skill whose declared requirements
   * (docs/skill-requirements.md) are not met in that runtime. `mark` (default): listed, its
   * description ending with what is missing; `hide`: left out like a skill the caller may not see.
   * skill_run refuses such a skill either way.
   */
  unmetRequirements?: UnmetRequirementsMode;
  /**
   * Calls that need a person's approval before they run, and how to ask (docs/approvals.md):
   * in-process with `decide`, else through the AI SDK's tool-approval request and response.
   */
  approval?: ApprovalOptions;
}

/** Everything `generateText` / `streamText` / `ToolLoopAgent` need for skills. */
export interface SkillToolkit {
  /** Skill tools and pool tools; `prepareStep` decides which are active in each step. */
  tools: Record<string, Tool>;
  prepareStep: PrepareStepFunction<Record<string, Tool>>;
  /** The skill tools (always active), in registration order. */
  skillToolNames: string[];
  /** The pool tools, in registration order. */
  poolToolNames: string[];
  /** The workspace manager when the toolkit was given a `runtime` or `workspaces`. */
  workspaces: WorkspaceManager | undefined;
  /**
   * The settings that carry `context` into one call: spread them into `generateText` /
   * `streamText` / `agent.generate` (`toolsContext` on ai 7, `experimental_context` on ai 6).
   */
  contextOptions(context: SkillCallContext): SkillContextCallOptions;
}

/**
 * Skills for an AI SDK tool loop in one call: the neutral skill tools adapted to AI SDK tools, the
 * pool tools, and the `prepareStep` that does progressive disclosure. Give each call its context
 * with `...toolkit.contextOptions(createSkillCallContext(...))`.
 */
export function createSkillToolkit(options: SkillToolkitOptions): SkillToolkit {
  validateOptions('createSkillToolkit', skillToolkitOptionsSchema, options);
  return buildSkillToolkit(options);
}

/**
 * `createSkillToolkit` for options a schema already checked (`createVisibleSkillToolkits`'s or the
 * agent's). `setup` is the execution set-up those made once for all their toolkits; without it the
 * toolkit makes its own from `runtime` / `workspaces`.
 */
export function buildSkillToolkit(options: SkillToolkitOptions, setup?: ExecutionSetup): SkillToolkit {
  // Required by the schema that checked the options (toolkitRules in skill-agent-options-schema.ts).
  const listedRepository = options.repository as SkillRepository;
  const toolPool = options.toolPool ?? {};
  const poolToolNames = Object.keys(toolPool);
  const { workspaces, executionTools, execution } = setup ?? executionSetup(options, listedRepository);
  // What the model sees (catalog, skill tools, search) is gated by where commands run; skill_run
  // keeps the ungated repository and refuses on its own.
  const repository =
    execution === undefined
      ? listedRepository
      : gateRepository(listedRepository, requirementCheckerFor(execution), options.unmetRequirements ?? 'mark');
  const skillSearch = options.skillSearch ?? 'over-budget';
  // Registered where it can be offered: always, or over budget when the catalog has a budget to be over.
  const registerSearch =
    skillSearch === 'always' ||
    (skillSearch === 'over-budget' &&
      options.catalog !== false &&
      (options.catalog?.budget?.tokens !== undefined || options.catalog?.budget?.characters !== undefined));
  const definitions = createCheckedSkillTools({
    repository,
    profile: integrationSkillToolProfile(options.profile, (executionTools?.length ?? 0) > 0, poolToolNames.length > 0),
    ...(executionTools !== undefined ? { executionTools } : {}),
    ...(poolToolNames.length > 0 ? { toolPool: poolToolNames } : {}),
    ...(options.maxLoadedSkills !== undefined ? { maxLoadedSkills: options.maxLoadedSkills } : {}),
    ...(options.skillNames !== undefined ? { skillNames: options.skillNames } : {}),
    ...(includesNonModelInvocable(options) ? { includeNonModelInvocable: true } : {}),
    ...(registerSearch ? { skillSearch: true } : {}),
    ...(options.searchBodies === true ? { searchBodies: true } : {}),
  });
  const skillToolNames = definitions.map((definition) => definition.name);
  // Refuses a pool tool named like a skill tool, before anything is adapted.
  const skillPrepareStep = buildSkillPrepareStep({ ...options, repository, skillToolNames });
  const prepareStep: PrepareStepFunction<Record<string, Tool>> =
    options.approval === undefined
      ? skillPrepareStep
      : async (step) => {
          if (step.stepNumber === 0) {
            const denials = deniedApprovalEvents(conversationOfStep(step), skillToolNames);
            if (denials.length > 0) {
              const context = resolveSkillCallContext(
                contextOfStep(step, skillToolNames),
                options.context,
                'createSkillToolkit prepareStep',
              );
              for (const event of denials) {
                context.onApprovalEvent?.(event);
                options.approval?.onEvent?.(event);
              }
            }
          }
          return skillPrepareStep(step);
        };
  const adapted = toAiSdkTools(definitions, {
    ...(options.context !== undefined ? { context: options.context } : {}),
    ...(options.approval !== undefined ? { approval: options.approval } : {}),
  });
  return {
    tools: { ...adapted, ...toolPool },
    prepareStep,
    skillToolNames,
    poolToolNames,
    workspaces,
    contextOptions: (context) => skillContextCallOptions(context, skillToolNames),
  };
}
