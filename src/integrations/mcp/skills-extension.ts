/** The identifier of the MCP Skills Extension (SEP-2640) in `capabilities.extensions`. */
export const skillsExtensionId = 'io.modelcontextprotocol/skills';

/** Most files one skill may have, SKILL.md included (the extension's per-skill limit). */
export const maxFilesPerSkill = 512;

/** Most bytes all files of one skill may have together: 16 MiB (the extension's per-skill limit). */
export const maxBytesPerSkill = 16 * 1024 * 1024;

/** The MIME type the extension gives a directory resource. */
export const directoryMimeType = 'inode/directory';

/** One file of a skill as a `skills/list` entry lists it: URI, `sha256:<hex>` digest of its bytes, byte length. */
export interface SkillManifestFile {
  uri: string;
  digest: string;
  size: number;
}

/** One `skills/list` / `skills/get` entry: SKILL.md's URI, the verbatim frontmatter, the complete manifest. */
export interface SkillListingEntry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: SkillManifestFile[] | 'dynamic';
}
