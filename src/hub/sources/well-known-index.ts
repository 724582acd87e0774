import { isPlainRecord } from '../../format/is-plain-record.js';
import { cleanArchivePath } from '../../repository/archive/archive-path.js';
import { UnsafeArchiveError } from '../../repository/archive/errors.js';
import type { SourceErrorFactory } from './skill-source-error.js';

/** The `$schema` of a v0.2 index (Agent Skills Discovery RFC); an index without one is v0.1. */
export const wellKnownSchemaV2 = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

/** A v0.1 entry: the skill's files, each served at `{index folder}/{name}/{path}`. */
export interface WellKnownFilesEntry {
  readonly version: '0.1';
  readonly name: string;
  readonly description: string;
  readonly files: readonly string[];
}

/** A v0.2 entry: one artifact (a SKILL.md or a .tar.gz / .zip archive) with its sha256 digest. */
export interface WellKnownArtifactEntry {
  readonly version: '0.2';
  readonly name: string;
  readonly description: string;
  readonly type: 'skill-md' | 'archive';
  readonly url: string;
  /** 64 lowercase hex digits, without the `sha256:` prefix. */
  readonly sha256: string;
}

export type WellKnownEntry = WellKnownFilesEntry | WellKnownArtifactEntry;

const namePattern = /^(?!.*--)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
// The RFC's path characters: printable ASCII without \ ? # [ ].
const pathPattern = /^[\x20-\x22\x24-\x3E\x40-\x5A\x5E-\x7E]+$/;

function checkedName(value: unknown, index: number, fail: SourceErrorFactory): string {
  if (typeof value !== 'string' || value.length > 64 || !namePattern.test(value))
    throw fail('refused', `index entry #${index}: "name" ${JSON.stringify(value)} is not a valid skill name`);
  return value;
}

function checkedDescription(value: unknown, name: string, fail: SourceErrorFactory): string {
  if (typeof value !== 'string' || value.trim() === '' || [...value].length > 1024)
    throw fail('refused', `index entry "${name}": "description" must be a non-empty string of at most 1024 characters`);
  return value;
}

/**
 * The entries of a well-known index, every field checked; an entry that breaks a rule makes the
 * whole index an error (a file list that climbs out of the skill is an attack, not a typo). Unknown
 * v0.2 entry types are skipped, as the RFC says. Duplicate names are refused.
 */
export function parseWellKnownIndex(document: unknown, fail: SourceErrorFactory): WellKnownEntry[] {
  if (!isPlainRecord(document) || !Array.isArray(document.skills))
    throw fail('refused', 'the index is not an object with a "skills" array');
  const schema = document.$schema;
  if (schema !== undefined && schema !== wellKnownSchemaV2)
    throw fail(
      'refused',
      `the index has an unrecognised $schema ${JSON.stringify(schema)}; only v0.1 and v0.2 are read`,
    );
  const entries: WellKnownEntry[] = [];
  const seen = new Set<string>();
  document.skills.forEach((raw: unknown, index: number) => {
    if (!isPlainRecord(raw)) throw fail('refused', `index entry #${index} is not an object`);
    const name = checkedName(raw.name, index, fail);
    if (seen.has(name)) throw fail('refused', `the index lists "${name}" twice`);
    seen.add(name);
    const description = checkedDescription(raw.description, name, fail);
    if (schema === undefined) {
      const files = raw.files;
      if (!Array.isArray(files) || files.length === 0 || !files.every((file) => typeof file === 'string'))
        throw fail('refused', `index entry "${name}": "files" must be a non-empty array of paths`);
      for (const file of files as string[]) {
        let clean: string | undefined;
        try {
          clean = cleanArchivePath(file);
        } catch (error) {
          if (error instanceof UnsafeArchiveError)
            throw fail('refused', `index entry "${name}": ${error.message}`, error);
          throw error;
        }
        if (clean !== file || !pathPattern.test(file))
          throw fail(
            'refused',
            `index entry "${name}": file path ${JSON.stringify(file)} is not a clean relative path`,
          );
      }
      if (!(files as string[]).includes('SKILL.md'))
        throw fail('refused', `index entry "${name}": "files" does not list SKILL.md`);
      entries.push({ version: '0.1', name, description, files: files as string[] });
      return;
    }
    if (raw.type !== 'skill-md' && raw.type !== 'archive') return;
    if (typeof raw.url !== 'string' || raw.url === '')
      throw fail('refused', `index entry "${name}": "url" must be a non-empty string`);
    const digest = typeof raw.digest === 'string' ? /^sha256:([a-f0-9]{64})$/.exec(raw.digest) : null;
    if (digest === null)
      throw fail('refused', `index entry "${name}": "digest" must be sha256: followed by 64 lowercase hex digits`);
    entries.push({ version: '0.2', name, description, type: raw.type, url: raw.url, sha256: digest[1] as string });
  });
  return entries;
}
