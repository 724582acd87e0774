import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3TestServer, startS3TestServer } from '../../../test/support/s3-test-server.js';
import { postgresReachable, postgresUrl } from '../../../test/support/services.js';
import { createWorkspaceCustody } from './create-workspace-custody.js';
import { openPostgresWorkspaceLeases } from './postgres-workspace-leases.js';
import { createS3SnapshotStore } from './s3-snapshot-store.js';
import { dropCustodyTables, uniqueCustodyTablePrefix } from './testing/custody-tables.js';
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

describe.runIf(postgresReachable)('workspace custody on S3', () => {
  it('hands a workspace from one worker to the next through S3, the pointer in PostgreSQL', async () => {
    const tablePrefix = uniqueCustodyTablePrefix();
    const root = await mkdtemp(join(tmpdir(), 'skillbox-custody-s3-'));
    const prefix = `custody-${randomBytes(4).toString('hex')}/`;
    const snapshots = createS3SnapshotStore({ client: server.client, bucket: server.bucket, prefix });
    const first = await openPostgresWorkspaceLeases({ connectionString: postgresUrl, tablePrefix, workerId: 'a' });
    const second = await openPostgresWorkspaceLeases({ connectionString: postgresUrl, tablePrefix, workerId: 'b' });
    try {
      const a = createWorkspaceCustody({ leases: first, snapshots });
      await mkdir(join(root, 'a'));
      await a.acquire('ws', join(root, 'a'));
      await writeFile(join(root, 'a', 'result.csv'), 'x,y\n1,2\n');
      await a.changed('ws', join(root, 'a'));
      const digest = (await first.currentSnapshot('ws')) as string;
      expect(await snapshots.has(digest)).toBe(true);
      await a.close();
      const b = createWorkspaceCustody({ leases: second, snapshots });
      await mkdir(join(root, 'b'));
      await b.acquire('ws', join(root, 'b'));
      expect(await readFile(join(root, 'b', 'result.csv'), 'utf8')).toBe('x,y\n1,2\n');
      await b.close();
    } finally {
      await first.close();
      await second.close();
      await dropCustodyTables(postgresUrl, tablePrefix);
      await rm(root, { recursive: true, force: true });
    }
  });
});
