import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresReachable, postgresUrl } from '../../../test/support/services.js';
import { openPostgresSnapshotStore } from './postgres-snapshot-store.js';
import { dropCustodyTables, uniqueCustodyTablePrefix } from './testing/custody-tables.js';
import { describeSnapshotStoreConformance } from './testing/snapshot-store-conformance.js';

describe.runIf(postgresReachable)('PostgreSQL snapshot store', () => {
  describeSnapshotStoreConformance('PostgreSQL large objects', async () => {
    const tablePrefix = uniqueCustodyTablePrefix();
    const open = () => openPostgresSnapshotStore({ connectionString: postgresUrl, tablePrefix });
    return { store: await open(), openAnother: open, destroy: () => dropCustodyTables(postgresUrl, tablePrefix) };
  });

  it('leaves no large object behind when a put loses the race or fails', async () => {
    const tablePrefix = uniqueCustodyTablePrefix();
    const pool = new pg.Pool({ connectionString: postgresUrl, max: 4 });
    const count = async () =>
      Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM pg_largeobject_metadata')).rows[0]?.n);
    try {
      const store = await openPostgresSnapshotStore({ pool, tablePrefix });
      const before = await count();
      async function* short(): AsyncGenerator<Buffer> {
        yield Buffer.from('only ten b');
      }
      await expect(store.put('c'.repeat(64), short(), 11)).rejects.toThrow(/10 bytes arrived/);
      expect(await count()).toBe(before);
    } finally {
      await pool.end();
      await dropCustodyTables(postgresUrl, tablePrefix);
    }
  });
});
