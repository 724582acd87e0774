import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { nonEmptyString, optionsObject } from '../../config/option-schemas.js';
import { validateOptions } from '../../config/validate-options.js';
import { ArtifactNameError, ArtifactNotFoundError } from '../errors.js';
import type { ArtifactAddress, ArtifactStore, ArtifactVersion, StoredArtifact } from './artifact-store.js';

/** Options of `createFilesystemArtifactStore`: the folder that holds every artifact version. */
export interface FilesystemArtifactStoreOptions {
  /** Folder that holds every scope's artifacts; created on first save. */
  dir: string;
}

/** Longest encoded scope or name: file names stop at 255 bytes on the common filesystems. */
const maxEncodedLength = 200;

const filesystemArtifactStoreOptionsSchema = optionsObject({
  dir: nonEmptyString('must be the artifact folder, a non-empty path'),
});

/**
 * Artifacts as files: `<dir>/<scope>/<name>/v<N>/data` plus `meta.json`. Scope and name are
 * percent-encoded into single folder names, so `out/report.pdf` cannot create or reach folders.
 * A version is claimed by creating its folder (atomic and exclusive, so concurrent saves get distinct
 * numbers) and counts only once `meta.json` is renamed into place: a crash leaves no half version.
 */
export class FilesystemArtifactStore implements ArtifactStore {
  readonly dir: string;

  /** Options already checked: `createFilesystemArtifactStore` checks a caller's, a workspace manager makes its own. */
  constructor(options: FilesystemArtifactStoreOptions) {
    this.dir = path.resolve(options.dir);
  }

  async save(address: ArtifactAddress, data: Uint8Array, mimeType: string): Promise<ArtifactVersion> {
    const folder = this.folderOf(address);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    let version = (await this.completeVersions(folder)).at(-1) ?? 0;
    for (;;) {
      version += 1;
      try {
        await mkdir(path.join(folder, `v${version}`));
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    const versionDir = path.join(folder, `v${version}`);
    const record: ArtifactVersion = {
      name: address.name,
      version,
      mimeType,
      sizeBytes: data.byteLength,
      createdAt: new Date().toISOString(),
    };
    try {
      await writeFile(path.join(versionDir, 'data'), data, { mode: 0o600 });
      const temporary = path.join(versionDir, `.meta.${randomBytes(4).toString('hex')}.tmp`);
      await writeFile(temporary, JSON.stringify(record), { mode: 0o600 });
      await rename(temporary, path.join(versionDir, 'meta.json'));
    } catch (error) {
      await rm(versionDir, { recursive: true, force: true });
      throw error;
    }
    return record;
  }

  async load(address: ArtifactAddress, version?: number): Promise<StoredArtifact> {
    const folder = this.folderOf(address);
    const wanted = version ?? (await this.completeVersions(folder)).at(-1);
    if (wanted === undefined) throw new ArtifactNotFoundError(address.name);
    const versionDir = path.join(folder, `v${wanted}`);
    try {
      const record = JSON.parse(await readFile(path.join(versionDir, 'meta.json'), 'utf8')) as ArtifactVersion;
      return { ...record, data: await readFile(path.join(versionDir, 'data')) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ArtifactNotFoundError(address.name, wanted);
      throw error;
    }
  }

  async versions(address: ArtifactAddress): Promise<ArtifactVersion[]> {
    const folder = this.folderOf(address);
    const records: ArtifactVersion[] = [];
    for (const version of await this.completeVersions(folder)) {
      records.push(
        JSON.parse(await readFile(path.join(folder, `v${version}`, 'meta.json'), 'utf8')) as ArtifactVersion,
      );
    }
    return records;
  }

  private folderOf(address: ArtifactAddress): string {
    return path.join(this.dir, encodeSegment(address.scope, 'scope'), encodeSegment(address.name, 'name'));
  }

  /** Version numbers whose meta.json exists, ascending. */
  private async completeVersions(folder: string): Promise<number[]> {
    const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[];
      throw error;
    });
    const versions: number[] = [];
    for (const name of names) {
      const match = /^v(\d+)$/.exec(name);
      if (!match) continue;
      const complete = await readdir(path.join(folder, name)).then(
        (inner) => inner.includes('meta.json'),
        () => false,
      );
      if (complete) versions.push(Number(match[1]));
    }
    return versions.sort((a, b) => a - b);
  }
}

function encodeSegment(value: string, what: 'scope' | 'name'): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new ArtifactNameError(String(value), `the ${what} is empty`);
  if (value === '.' || value === '..') throw new ArtifactNameError(value, `the ${what} "${value}" is reserved`);
  const encoded = encodeURIComponent(value).replace(/\./g, (dot, offset: number) => (offset === 0 ? '%2E' : dot));
  if (encoded.length <= maxEncodedLength) return encoded;
  // A scope is built from app, user and session ids the caller does not control in length: a long
  // one keeps a readable head and a sha256 of the whole. `%%` never occurs in percent-encoded text,
  // so a shortened scope cannot equal a short one.
  if (what === 'scope')
    return `${encoded.slice(0, 100).replace(/%[0-9A-F]?$/, '')}%%${createHash('sha256').update(value).digest('hex')}`;
  throw new ArtifactNameError(value, `the ${what} is too long (at most ${maxEncodedLength} bytes once encoded)`);
}

/** An artifact store that keeps every version as files under one folder. */
export function createFilesystemArtifactStore(options: FilesystemArtifactStoreOptions): FilesystemArtifactStore {
  validateOptions('createFilesystemArtifactStore', filesystemArtifactStoreOptionsSchema, options);
  return new FilesystemArtifactStore(options);
}
