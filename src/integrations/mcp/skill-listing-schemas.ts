import { z } from 'zod';

// What a host accepts from a server's Skills Extension answers. Loose objects: the extension lets
// servers add fields, and a newer server must not be refused for them. The digest format is
// checked per entry later, so one bad entry is reported and skipped rather than failing the page.

export const manifestFileSchema = z.looseObject({ uri: z.string(), digest: z.string(), size: z.number() });

export const listingEntrySchema = z.looseObject({
  uri: z.string(),
  frontmatter: z.record(z.string(), z.unknown()),
  resources: z.unknown(),
});

export const listSkillsResultSchema = z.looseObject({
  skills: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});
