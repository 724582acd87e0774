import type { ArchiveFormat } from './archive-entry.js';

export type SkillsDownloadKind = ArchiveFormat | 'skill-file';

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  return prefix.every((byte, index) => bytes[at + index] === byte);
}

/**
 * What a downloaded skills root is: by the name's suffix first (the publisher said so), then by
 * the content's magic bytes (a URL such as `/download?id=3` says nothing), then a lone `SKILL.md`.
 * Undefined when it is none of these.
 */
export function detectArchiveFormat(name: string, bytes: Uint8Array): SkillsDownloadKind | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.zip')) return 'zip';
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) return 'tar.gz';
  if (lower.endsWith('.tar')) return 'tar';
  // Local file header, or the end record alone of an empty zip.
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06])) return 'zip';
  if (startsWith(bytes, [0x1f, 0x8b])) return 'tar.gz';
  if (startsWith(bytes, [0x75, 0x73, 0x74, 0x61, 0x72], 257)) return 'tar';
  if (lower === 'skill.md' || lower.endsWith('/skill.md')) return 'skill-file';
  return undefined;
}
