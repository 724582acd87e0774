import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ArtifactNameError, ArtifactNotFoundError } from '../errors.js';
import { parseArtifactReference } from './artifact-store.js';
import { createFilesystemArtifactStore, FilesystemArtifactStore } from './filesystem-artifact-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'skillbox-artifacts-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('FilesystemArtifactStore', () => {
  it('numbers versions 1, 2, 3 and returns bytes intact', async () => {
    const store = new FilesystemArtifactStore({ dir });
    const address = { scope: 's', name: 'out/report.bin' };
    const payloads = [Buffer.from([0, 255, 1]), Buffer.from('second'), Buffer.alloc(0)];
    const saved = [];
    for (const payload of payloads) saved.push(await store.save(address, payload, 'application/octet-stream'));
    expect(saved.map((item) => item.version)).toEqual([1, 2, 3]);
    expect(Buffer.compare((await store.load(address, 1)).data, payloads[0]!)).toBe(0);
    expect((await store.load(address)).version).toBe(3);
    expect((await store.versions(address)).map((item) => item.sizeBytes)).toEqual([3, 6, 0]);
    await expect(store.load(address, 9)).rejects.toThrow(ArtifactNotFoundError);
    await expect(store.load({ scope: 'other', name: 'out/report.bin' })).rejects.toThrow(ArtifactNotFoundError);
  });

  it('gives concurrent saves distinct versions', async () => {
    const store = new FilesystemArtifactStore({ dir });
    const saved = await Promise.all(
      [1, 2, 3, 4, 5].map((n) => store.save({ scope: 's', name: 'x' }, Buffer.from(String(n)), 'text/plain')),
    );
    expect(saved.map((item) => item.version).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('keeps names inside its folder', async () => {
    const store = new FilesystemArtifactStore({ dir });
    await store.save({ scope: '../s', name: '../../etc/x' }, Buffer.from('a'), 'text/plain');
    expect(await readdir(dir)).toEqual(['%2E.%2Fs']);
    await expect(store.save({ scope: 's', name: '..' }, Buffer.from('a'), 'text/plain')).rejects.toThrow(
      ArtifactNameError,
    );
    await expect(store.save({ scope: 's', name: '' }, Buffer.from('a'), 'text/plain')).rejects.toThrow(
      ArtifactNameError,
    );
    expect(() => createFilesystemArtifactStore({ dir: '' })).toThrow(/dir/);
  });

  it('parses references', () => {
    expect(parseArtifactReference('artifact://out/a.txt@3')).toEqual({ name: 'out/a.txt', version: 3 });
    expect(parseArtifactReference('artifact://user@host.txt')).toEqual({ name: 'user@host.txt' });
    expect(parseArtifactReference('workspace://a')).toBeUndefined();
  });
});
