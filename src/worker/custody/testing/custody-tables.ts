import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A table prefix no other test run uses, so tests on one database do not see each other's leases. */
export function uniqueCustodyTablePrefix(): string {
  return `skillbox_test_${process.pid}_${randomBytes(4).toString('hex')}_`;
}

/** Drops every table (and the large objects the snapshot store kept) under `prefix`. */
export async function dropCustodyTables(connectionString: string, prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const tables = await client.query<{ tablename: string }>(
      `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND starts_with(tablename, $1)`,
      [prefix],
    );
    for (const { tablename } of tables.rows) {
      if (tablename.endsWith('workspace_snapshots'))
        await client.query(
          `SELECT lo_unlink(oid) FROM ${tablename} WHERE oid IN (SELECT oid FROM pg_largeobject_metadata)`,
        );
      await client.query(`DROP TABLE ${tablename}`);
    }
  } finally {
    await client.end();
  }
}
