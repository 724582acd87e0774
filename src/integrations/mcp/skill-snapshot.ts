import { createHash } from 'node:crypto';
import { parseSkillMarkdown } from '../../format/parse-skill.js';
import type { SkillContext, SkillRepository } from '../../repository/types.js';
import { McpSkillLimitError } from './errors.js';
import { skillMarkdownUri, skillResourceUri } from './skill-resource-uri.js';
import {
  maxBytesPerSkill,
  maxFilesPerSkill,
  type SkillListingEntry,
  type SkillManifestFile,
} from './skills-extension.js';

/** One file of a snapshot: the bytes that were hashed, and what the manifest says of them. */
export interface SkillSnapshotFile extends SkillManifestFile {
  path: string;
  bytes: Buffer;
}

/**
 * A skill's files as they were when its manifest was built. The server answers `resources/read`
 * from these bytes, never from the disk, so a file edited after the listing is never served under
 * the digest of its old content: the host sees the change when it lists or gets the skill again.
 */
export interface SkillSnapshot {
  name: string;
  /** By `/`-separated path relative to the skill folder, SKILL.md included. */
  files: Map<string, SkillSnapshotFile>;
  entry: SkillListingEntry;
}

/** `sha256:` and the 64 lowercase hex digits of the SHA-256 of the bytes, the extension's digest format. */
export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/**
 * Reads every file of the skill once, hashes it and keeps the bytes. Refuses (McpSkillLimitError,
 * naming the skill) a skill over the extension's limits: more than 512 files, or more than 16 MiB
 * in all, checked while reading so a huge skill is not read whole first.
 */
export async function takeSkillSnapshot(
  repository: SkillRepository,
  name: string,
  context: SkillContext | undefined,
): Promise<SkillSnapshot> {
  const paths = [...(await repository.listFiles(name, context))].sort();
  if (paths.length > maxFilesPerSkill) throw new McpSkillLimitError(name, `has ${paths.length} files`);
  const files = new Map<string, SkillSnapshotFile>();
  let total = 0;
  for (const path of paths) {
    const bytes = await repository.readFile(name, path, context);
    total += bytes.length;
    if (total > maxBytesPerSkill)
      throw new McpSkillLimitError(name, `has more than ${maxBytesPerSkill} bytes of files`);
    files.set(path, {
      path,
      uri: skillResourceUri(name, path),
      bytes,
      digest: sha256Digest(bytes),
      size: bytes.length,
    });
  }
  const markdown = files.get('SKILL.md');
  // The frontmatter is read from the snapshot's own SKILL.md bytes, so the entry and the bytes a
  // host verifies it against can never come from two different moments.
  const frontmatter =
    markdown === undefined
      ? (await repository.get(name, context)).frontmatter
      : parseSkillMarkdown(markdown.bytes).frontmatter;
  const entry: SkillListingEntry = {
    uri: skillMarkdownUri(name),
    frontmatter,
    resources: [...files.values()].map(({ uri, digest, size }) => ({ uri, digest, size })),
  };
  return { name, files, entry };
}
