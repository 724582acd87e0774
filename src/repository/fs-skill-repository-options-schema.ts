import { z } from 'zod';
import {
  booleanOption,
  functionOption,
  nonEmptyString,
  optionsObject,
  positiveInteger,
  recordOption,
} from '../config/option-schemas.js';
import { deniedFileNamesSchema } from './denied-file-names-schema.js';
import { urlRootOptionsSchema } from './url-root-options-schema.js';

/** `FsSkillRepositoryOptions`, checked when the repository is created, before any root is read. */
export const fsSkillRepositoryOptionsSchema = optionsObject({
  roots: z
    .array(nonEmptyString('must be a non-empty folder path'), { error: 'must be an array of folder paths' })
    .optional(),
  cwd: nonEmptyString('must be a non-empty folder path').optional(),
  env: recordOption('must be an object of environment variables').optional(),
  home: nonEmptyString('must be a non-empty folder path').optional(),
  strict: booleanOption().optional(),
  maxDepth: positiveInteger().optional(),
  maxEntries: positiveInteger().optional(),
  maxFilesPerSkill: positiveInteger().optional(),
  maxSkillFileBytes: positiveInteger().optional(),
  maxReadableFileBytes: positiveInteger().optional(),
  deniedFileNames: deniedFileNamesSchema.optional(),
  nested: booleanOption().optional(),
  locked: booleanOption().optional(),
  urlRoots: urlRootOptionsSchema.optional(),
  onWarning: functionOption('(warning) => void').optional(),
});
