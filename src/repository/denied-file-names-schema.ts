import { z } from 'zod';

const patternError = 'must be a non-empty file name pattern';

/** Denied file name patterns: each matched against one file or folder name, so it cannot hold a separator. */
export const deniedFileNamesSchema = z.array(
  z
    .string({ error: patternError })
    .refine((pattern) => pattern.trim() !== '', { error: patternError })
    .refine((pattern) => !pattern.includes('/') && !pattern.includes('\\'), {
      error: 'is matched against one file or folder name and cannot hold a separator',
    }),
  { error: 'must be an array of file name patterns' },
);
