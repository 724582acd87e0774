import { z } from 'zod';
import { nonEmptyString, optionsObject } from '../../config/option-schemas.js';
import { imageReference } from '../../format/skill-image.js';

const positiveIntegerOrNull = 'must be a positive integer or null';
const limit = () =>
  z.int({ error: positiveIntegerOrNull }).min(1, { error: positiveIntegerOrNull }).nullable().optional();
const cpusError = 'must be a number of CPUs of at least 0.01, or null';
const userError = 'must be "uid:gid" in numbers, not root (such as "65534:65534")';

/** The fields of `ContainerRuntimeOptions`, shared with `createRuntime({ kind: 'container' })`. */
export const containerRuntimeShape = {
  image: nonEmptyString('must be an image name, such as "debian:bookworm-slim"'),
  socketPath: nonEmptyString('must be the path of the Engine API socket').optional(),
  host: z
    .string({ error: 'must be unix:///path or tcp://host:port' })
    .regex(/^(unix:\/\/\/.+|tcp:\/\/[^/]+)$/, { error: 'must be unix:///path or tcp://host:port' })
    .optional(),
  ociRuntime: nonEmptyString('must be an OCI runtime name the daemon knows, such as "runsc"').optional(),
  user: z
    .string({ error: userError })
    .regex(/^\d+:\d+$/, { error: userError })
    .refine((value) => !value.startsWith('0:') && !value.endsWith(':0'), { error: userError })
    .optional(),
  memoryBytes: limit(),
  pids: limit(),
  cpus: z.number({ error: cpusError }).min(0.01, { error: cpusError }).nullable().optional(),
  tmpBytes: z.int({ error: 'must be a positive integer' }).min(1, { error: 'must be a positive integer' }).optional(),
  network: nonEmptyString('must be a network mode such as "bridge"').optional(),
  allowedImages: z
    .array(z.string().regex(imageReference, { error: 'must be an image reference such as "debian:bookworm-slim"' }), {
      error: 'must be a list of image references',
    })
    .optional(),
};

/** `ContainerRuntimeOptions`. */
export const containerRuntimeOptionsSchema = optionsObject(containerRuntimeShape);
