import { describe } from 'vitest';
import { postgresReachable, postgresUrl } from '../../test/support/services.js';
import { createMemoryRunLedger } from './memory-run-ledger.js';
import { openPostgresRunLedger } from './postgres-run-ledger.js';
import { describeRunLedgerConformance } from './testing/run-ledger-conformance.js';

describe('run ledgers', () => {
  describeRunLedgerConformance('memory', () => {
    const ledger = createMemoryRunLedger();
    // One memory ledger is one record: both "workers" share it (close is a no-op).
    return { open: async () => ledger };
  });

  describe.runIf(postgresReachable)('postgres', () => {
    const schema = `ledger_${process.pid}_${Date.now().toString(36)}`;
    describeRunLedgerConformance('postgres', () => ({
      open: () => openPostgresRunLedger({ connectionString: postgresUrl, schema }),
      async dispose() {
        const pg = (await import('pg')).default;
        const client = new pg.Client({ connectionString: postgresUrl });
        await client.connect();
        await client.query(`DROP SCHEMA "${schema}" CASCADE`);
        await client.end();
      },
    }));
  });
});
