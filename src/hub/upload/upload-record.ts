import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { SkillUploadFailedError } from './upload-errors.js';

/** What one provider holds of one skill: its id, the version last uploaded, and the digest of that version. */
export interface UploadedSkillRecord {
  /** The provider's skill id (`skill_...`). */
  readonly id: string;
  readonly version: string;
  /** skillbox's digest of the files that version holds. */
  readonly digest: string;
  /** The API the upload went to: a record for another base URL does not count. */
  readonly endpoint: string;
  readonly uploadedAt: string;
}

/** `.skillbox/uploads.json`: per skill, per provider, what was uploaded. */
export interface UploadRecord {
  readonly version: 1;
  readonly skills: Record<string, Record<string, UploadedSkillRecord>>;
}

const recordSchema = z.strictObject({
  version: z.literal(1),
  skills: z.record(
    z.string(),
    z.record(
      z.string(),
      z.strictObject({
        id: z.string().min(1),
        version: z.string().min(1),
        digest: z.string().regex(/^[0-9a-f]{64}$/),
        endpoint: z.string().min(1),
        uploadedAt: z.string(),
      }),
    ),
  ),
});

/** Reads the record file; a missing file is an empty record, a damaged one an error naming the file and field. */
export async function readUploadRecord(file: string): Promise<UploadRecord> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, skills: {} };
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SkillUploadFailedError(`${file}: not JSON (${(error as Error).message}); fix or remove it`);
  }
  const result = recordSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new SkillUploadFailedError(
      `${file}: ${issue?.path.join('.') || '(top level)'} ${issue?.message ?? 'is invalid'}; fix or remove it`,
    );
  }
  return result.data as UploadRecord;
}

/** Writes the record whole (a temporary file renamed over it), so a crash leaves the old or the new one. */
export async function writeUploadRecord(file: string, record: UploadRecord): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`);
  await rename(temporary, file);
}
