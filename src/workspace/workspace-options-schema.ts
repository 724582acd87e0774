import { isAbsolute } from 'node:path';
import { z } from 'zod';
import {
  evenWithOtherProblems,
  nonEmptyString,
  objectWithMethods,
  oneOf,
  optionsObject,
} from '../config/option-schemas.js';
import { omitInput } from '../config/validate-options.js';
import type { SkillRepository } from '../repository/types.js';
import type { WorkspaceRuntime } from '../runtime/runtime-types.js';

const readOnlyPathsSchema = z.array(
  z
    .string({ error: 'must be an absolute host path' })
    .refine((item) => isAbsolute(item), { error: 'must be an absolute host path' }),
  { error: 'must be a list of absolute host paths' },
);

/** `WorkspaceManagerOptions`; the read-only paths are then checked on disk by validateReadOnlyPaths. */
export const workspaceManagerOptionsSchema = optionsObject({
  runtime: objectWithMethods<WorkspaceRuntime>(
    ['run', 'guestPath', 'files'],
    'must be a WorkspaceRuntime (createRuntime(), LocalRuntime or SandboxRuntime)',
  ),
  repository: objectWithMethods<SkillRepository>(['get'], 'must be a SkillRepository'),
  baseDir: nonEmptyString('must be a non-empty folder path').optional(),
  stageMode: oneOf(['copy', 'link']).optional(),
  ttlMs: z
    .custom<number>((value) => typeof value === 'number' && value > 0, {
      error: 'must be a positive number of milliseconds (or Infinity)',
    })
    .optional(),
  readOnlyPaths: readOnlyPathsSchema.optional(),
}).superRefine((options, context) => {
  if (options.stageMode === 'link' && options.runtime?.isolated === true) {
    context.addIssue({
      code: 'custom',
      path: ['stageMode'],
      message: `"link" needs a runtime that sees host paths; the ${options.runtime.kind} runtime shows only the workspace, so use "copy"`,
      params: omitInput,
    });
  }
}, evenWithOtherProblems);

const positiveNumberError = 'must be a positive number';

function positiveNumber() {
  return z
    .number({ error: positiveNumberError })
    .refine((value) => value > 0, { error: positiveNumberError })
    .optional();
}

function positiveNumberOrInfinity() {
  const error = 'must be a positive number (or Infinity to turn the limit off)';
  return z.custom<number>((value) => typeof value === 'number' && value > 0, { error }).optional();
}

const programListSchema = z.array(nonEmptyString('must be a non-empty program name'), {
  error: 'must be a list of program names',
});

/** `ExecutionToolsOptions`; the command lists and host variables are then checked on this machine. */
export function executionToolsOptionsSchema(limits: ExecutionLimits) {
  return optionsObject({
    workspaces: objectWithMethods<{ baseDir: string }>(
      ['workspace'],
      'must be a WorkspaceManager (createWorkspaceManager())',
    ),
    ...executionSettingsShape(limits),
  }).superRefine(timeoutRules(limits), evenWithOtherProblems);
}

/**
 * The execution options without the workspace manager: what `createSkillAgent` and
 * `createSkillToolkit` take as `execution`, checked there with the rest of their options.
 */
export function executionSettingsSchema(limits: ExecutionLimits) {
  return optionsObject(executionSettingsShape(limits)).superRefine(timeoutRules(limits), evenWithOtherProblems);
}

interface ExecutionLimits {
  defaultTimeoutSeconds: number;
  defaultMaxTimeoutSeconds: number;
  maxTimeoutLimitSeconds: number;
}

function executionSettingsShape(limits: ExecutionLimits) {
  return {
    requireSkillLoaded: z.boolean({ error: 'must be true or false' }).optional(),
    allowedCommands: programListSchema.optional(),
    deniedCommands: programListSchema.optional(),
    allowHostEnv: z
      .array(z.string({ error: 'must be a variable name' }), { error: 'must be a list of variable names' })
      .optional(),
    hostInputs: z
      .union([z.boolean(), z.array(z.string().min(1))], { error: 'must be true, false or a list of host folders' })
      .optional(),
    network: z.boolean({ error: 'must be true or false' }).optional(),
    readOnlyPaths: readOnlyPathsSchema.optional(),
    defaultTimeoutSeconds: positiveNumber(),
    maxTimeoutSeconds: positiveNumber(),
    maxOutputBytes: positiveNumber(),
    outputLimits: z
      .looseObject(
        { maxFiles: positiveNumber(), maxFileBytes: positiveNumber(), maxTotalBytes: positiveNumber() },
        { error: 'must be an object' },
      )
      .optional(),
    inlineLimits: z
      .looseObject(
        { fileBytes: positiveNumber(), totalBytes: positiveNumber(), primaryBytes: positiveNumber() },
        { error: 'must be an object' },
      )
      .optional(),
    workspaceQuota: z
      .looseObject(
        { maxBytes: positiveNumberOrInfinity(), maxFiles: positiveNumberOrInfinity() },
        { error: 'must be an object' },
      )
      .optional(),
    skillNames: z
      .array(z.string(), { error: 'must be a non-empty list of skill names' })
      .min(1, { error: 'must be a non-empty list of skill names' })
      .optional(),
    repository: objectWithMethods<SkillRepository>(['get'], 'must be a SkillRepository').optional(),
    fileTools: z.boolean({ error: 'must be true or false' }).optional(),
    backgroundProcesses: z
      .union(
        [
          z.boolean(),
          z.looseObject({
            maxConcurrent: positiveNumber(),
            maxLifetimeSeconds: z
              .number({ error: 'must be a positive number' })
              .positive({ error: 'must be a positive number' })
              .max(limits.maxTimeoutLimitSeconds, {
                error: `must be at most ${limits.maxTimeoutLimitSeconds} s (the longest timer Node can set)`,
              })
              .optional(),
            maxBufferedOutputBytes: positiveNumber(),
          }),
        ],
        { error: 'must be false or an object of limits' },
      )
      .optional(),
  };
}

function timeoutRules(limits: ExecutionLimits) {
  return (
    options: { defaultTimeoutSeconds?: number | undefined; maxTimeoutSeconds?: number | undefined },
    context: z.core.$RefinementCtx,
  ): void => {
    const defaultTimeout = options.defaultTimeoutSeconds ?? limits.defaultTimeoutSeconds;
    const maxTimeout = options.maxTimeoutSeconds ?? Math.max(limits.defaultMaxTimeoutSeconds, defaultTimeout);
    // A timeout of the wrong type is reported by its own schema.
    if (typeof defaultTimeout !== 'number' || typeof maxTimeout !== 'number') return;
    if (maxTimeout > limits.maxTimeoutLimitSeconds) {
      context.addIssue({
        code: 'custom',
        path: [options.maxTimeoutSeconds === undefined ? 'defaultTimeoutSeconds' : 'maxTimeoutSeconds'],
        message: `must be at most ${limits.maxTimeoutLimitSeconds} s (about 24.8 days, the longest timer Node can set)`,
        input: maxTimeout,
      });
    } else if (defaultTimeout > maxTimeout) {
      context.addIssue({
        code: 'custom',
        path: ['defaultTimeoutSeconds'],
        message: `is larger than maxTimeoutSeconds (${maxTimeout})`,
        params: omitInput,
      });
    }
  };
}
