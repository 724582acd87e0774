import { SKILL_FILE_NAMES } from '../format/find-skill-markdown.js';

/**
 * Extensions of files that count as docs: prose and plain reference data a model can read as it
 * is. Scripts are text too but are left out on purpose: they are meant to be run, and a model that
 * wants to read one still can through `readFile`. Deciding by name, not content, keeps listing docs
 * free of reads, so a skill with a large data file costs one readdir, not a read of that file.
 */
const documentExtensions = new Set([
  '.md',
  '.markdown',
  '.mdx',
  '.txt',
  '.text',
  '.rst',
  '.adoc',
  '.org',
  '.csv',
  '.tsv',
  '.json',
  '.jsonl',
  '.yaml',
  '.yml',
  '.toml',
  '.xml',
  '.html',
  '.htm',
]);

/** The extensions (lower case, with the dot) that make a bundled file a doc. */
export const documentFileExtensions: readonly string[] = [...documentExtensions];

/** Whether a `/`-separated relative path of a bundled file is a doc (case-insensitive extension). */
export function isDocumentPath(relativePath: string): boolean {
  const base = relativePath.slice(relativePath.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  // A leading dot names a hidden file (".txt" alone is not a text file with an empty name).
  if (dot <= 0) return false;
  return documentExtensions.has(base.slice(dot).toLowerCase());
}

/** Whether a relative path names a skill's own definition file at the top of its folder. */
export function isSkillFilePath(relativePath: string): boolean {
  return SKILL_FILE_NAMES.includes(relativePath);
}
