import { createHash } from 'node:crypto';

/** One file of a skill for hashing: its `/`-separated path relative to the skill folder and its bytes. */
export interface HashedSkillFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** The lowercase hex SHA-256 of one file's bytes. */
export function fileSha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function lengthPrefix(length: number): Buffer {
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64BE(BigInt(length));
  return prefix;
}

/**
 * skillbox's digest of a whole skill: SHA-256 over every file, sorted by the UTF-8 bytes of its path,
 * each written as (8-byte big-endian path length, path, 8-byte big-endian content length, content).
 * The lengths make the encoding unambiguous: with path and content simply concatenated (as the
 * `skills` CLI's `computedHash` does), moving bytes from the end of one file's content into the next
 * file's name gives a different skill with the same hash.
 */
export function skillDigest(files: readonly HashedSkillFile[]): string {
  const encoded = files.map((file) => ({ path: Buffer.from(file.path, 'utf8'), bytes: file.bytes }));
  encoded.sort((left, right) => Buffer.compare(left.path, right.path));
  const hash = createHash('sha256');
  for (const file of encoded) {
    hash.update(lengthPrefix(file.path.length));
    hash.update(file.path);
    hash.update(lengthPrefix(file.bytes.length));
    hash.update(file.bytes);
  }
  return hash.digest('hex');
}

/**
 * The `computedHash` the `skills` CLI (npm package `skills`) writes to `skills-lock.json`: SHA-256
 * over the files sorted by `String.prototype.localeCompare` of their paths, each path (UTF-8) then
 * its bytes, with no separators. The CLI hashes every regular file below the skill folder except
 * those under `.git` and `node_modules`, and ignores links; callers pass the same set.
 */
export function skillsCliComputedHash(files: readonly HashedSkillFile[]): string {
  const sorted = [...files].sort((left, right) => left.path.localeCompare(right.path));
  const hash = createHash('sha256');
  for (const file of sorted) {
    hash.update(file.path);
    hash.update(file.bytes);
  }
  return hash.digest('hex');
}

/** Folders the `skills` CLI leaves out of `computedHash`; skillbox leaves them out of its digest too. */
export const unhashedFolderNames: ReadonlySet<string> = new Set(['.git', 'node_modules']);
