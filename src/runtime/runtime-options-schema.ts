import { z } from 'zod';
import { nonEmptyString, oneOf, optionsObject } from '../config/option-schemas.js';
import { containerRuntimeOptionsSchema } from './container/container-runtime-options-schema.js';

const positiveIntegerOrNull = 'must be a positive integer or null';

function limit() {
  return z.int({ error: positiveIntegerOrNull }).min(1, { error: positiveIntegerOrNull }).nullable().optional();
}

const cpusError = 'must be a number of CPUs of at least 0.01, or null';

const sandboxShape = {
  bubblewrapPath: nonEmptyString('must be the path of the bwrap program').optional(),
  shell: nonEmptyString('must be a shell name or absolute path').optional(),
  maxProcesses: limit(),
  maxMemoryBytes: limit(),
  maxFileSizeBytes: limit(),
  maxTmpBytes: limit(),
  maxSharedMemoryBytes: limit(),
  maxCpus: z.number({ error: cpusError }).min(0.01, { error: cpusError }).nullable().optional(),
};

/** `SandboxRuntimeOptions`: the bwrap program, the shell and the resource limits. */
export const sandboxRuntimeOptionsSchema = optionsObject(sandboxShape);

/** `LocalRuntimeOptions`. */
export const localRuntimeOptionsSchema = optionsObject({
  shell: nonEmptyString('must be a shell name or absolute path').optional(),
  isolationWarning: z.string({ error: 'must be a string' }).optional(),
});

/** `CreateRuntimeOptions`: the kind plus the sandbox options. */
export const createRuntimeOptionsSchema = optionsObject({
  ...sandboxShape,
  kind: oneOf(['auto', 'sandbox', 'local', 'container']).optional(),
  container: containerRuntimeOptionsSchema.optional(),
  hostFallback: z.boolean({ error: 'must be true or false' }).optional(),
});
