import { z } from 'zod';
import { positiveInteger } from '../../config/option-schemas.js';

/** Overrides of the archive limits: each a positive integer. */
export const archiveLimitsSchema = z.looseObject(
  {
    maxEntries: positiveInteger().optional(),
    maxEntryBytes: positiveInteger().optional(),
    maxTotalBytes: positiveInteger().optional(),
    maxCompressionRatio: positiveInteger().optional(),
    compressionRatioFloorBytes: positiveInteger().optional(),
  },
  { error: 'must be an object of archive limits' },
);
