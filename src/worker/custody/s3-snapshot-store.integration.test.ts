import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3TestServer, startS3TestServer } from '../../../test/support/s3-test-server.js';
import { createS3SnapshotStore } from './s3-snapshot-store.js';
import { describeSnapshotStoreConformance } from './testing/snapshot-store-conformance.js';

let server: S3TestServer;

beforeAll(async () => {
  server = await startS3TestServer();
});

afterAll(async () => {
  await server.stop();
});

describeSnapshotStoreConformance('S3 (s3rver on loopback)', async () => {
  const prefix = `run-${randomBytes(4).toString('hex')}/`;
  const open = async () => createS3SnapshotStore({ client: server.client, bucket: server.bucket, prefix });
  return { store: await open(), openAnother: open, destroy: async () => {} };
});

describe('createS3SnapshotStore options', () => {
  it('names the option that is wrong', () => {
    expect(() => createS3SnapshotStore({ client: server.client, bucket: '' })).toThrow(/"bucket"/);
    expect(() => createS3SnapshotStore({ client: server.client, bucket: 'b', prefix: '../x' })).toThrow(/"prefix"/);
    expect(() => createS3SnapshotStore({ client: {} as never, bucket: 'b' })).toThrow(/"client"/);
  });
});
