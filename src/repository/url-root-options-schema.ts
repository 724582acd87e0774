import { z } from 'zod';
import { booleanOption, nonEmptyString, nonNegativeInteger, positiveInteger } from '../config/option-schemas.js';
import { archiveLimitsSchema } from './archive/archive-limits-schema.js';

/** Options for http(s) roots (`UrlRootOptions`), alone or as `urlRoots` of a repository. */
export const urlRootOptionsSchema = z.looseObject(
  {
    cacheDir: nonEmptyString('must be a non-empty folder path').optional(),
    maxDownloadBytes: positiveInteger().optional(),
    timeoutMs: positiveInteger().optional(),
    maxRedirects: nonNegativeInteger().optional(),
    allowPrivateAddresses: booleanOption().optional(),
    archiveLimits: archiveLimitsSchema.optional(),
  },
  { error: 'must be an object' },
);
