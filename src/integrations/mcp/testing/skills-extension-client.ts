// Test helpers: the Skills Extension's methods called through the official SDK client, with the
// result shapes the extension defines, so a test sees what any host would receive.
import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';

export const manifestFileSchema = z.looseObject({
  uri: z.string(),
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  size: z.number().int().min(0),
});
export const skillEntrySchema = z.looseObject({
  uri: z.string(),
  frontmatter: z.record(z.string(), z.unknown()),
  resources: z.union([z.array(manifestFileSchema), z.literal('dynamic')]),
});
export const listSkillsResultSchema = z.looseObject({
  skills: z.array(skillEntrySchema),
  nextCursor: z.string().optional(),
  ttlMs: z.number().int().min(0),
  cacheScope: z.enum(['public', 'private']),
});
export const getSkillResultSchema = z.looseObject({
  skill: skillEntrySchema,
  ttlMs: z.number().int().min(0),
  cacheScope: z.enum(['public', 'private']),
});
export const directoryResultSchema = z.looseObject({
  resources: z.array(z.looseObject({ uri: z.string(), name: z.string(), mimeType: z.string().optional() })),
});

export type SkillEntry = z.infer<typeof skillEntrySchema>;

/** Every `skills/list` page, in order, following `nextCursor` until there is none. */
export async function listAllSkillPages(client: Client): Promise<Array<z.infer<typeof listSkillsResultSchema>>> {
  const pages: Array<z.infer<typeof listSkillsResultSchema>> = [];
  let cursor: string | undefined;
  do {
    const page = await client.request(
      { method: 'skills/list', params: cursor === undefined ? {} : { cursor } },
      listSkillsResultSchema,
    );
    pages.push(page);
    if (page.nextCursor !== undefined && page.nextCursor === cursor) throw new Error('the server repeated a cursor');
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

/** The raw bytes of a `resources/read` content: UTF-8 of `text`, or the decoded `blob`. */
export function contentBytes(content: { text?: unknown; blob?: unknown }): Buffer {
  if (typeof content.text === 'string') return Buffer.from(content.text, 'utf8');
  if (typeof content.blob === 'string') return Buffer.from(content.blob, 'base64');
  throw new Error('resources/read returned neither text nor blob');
}

export function digestOf(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}
