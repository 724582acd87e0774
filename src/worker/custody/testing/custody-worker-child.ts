// A sandbox worker's custody in a process of its own, driven one JSON line at a time on stdin
// ({"op":"acquire"|"changed"|"release","name","folder"}) and answering one JSON line per command
// on stdout ({"ok":true} or {"ok":false,"code","message"}). Tests stop it with SIGSTOP to play a
// worker that stalls past its lease (its heartbeat stops with it) and SIGCONT to bring it back.
// Start it as `node --import tsx custody-worker-child.ts` with SKILLBOX_CUSTODY_* set.
import { createInterface } from 'node:readline';
import { createWorkspaceCustody } from '../create-workspace-custody.js';
import { openPostgresSnapshotStore } from '../postgres-snapshot-store.js';
import { openPostgresWorkspaceLeases } from '../postgres-workspace-leases.js';

const connectionString = process.env.SKILLBOX_CUSTODY_POSTGRES as string;
const tablePrefix = process.env.SKILLBOX_CUSTODY_TABLE_PREFIX as string;
const leases = await openPostgresWorkspaceLeases({
  connectionString,
  tablePrefix,
  workerId: process.env.SKILLBOX_CUSTODY_WORKER as string,
  leaseMs: Number(process.env.SKILLBOX_CUSTODY_LEASE_MS),
});
const snapshots = await openPostgresSnapshotStore({ connectionString, tablePrefix });
const custody = createWorkspaceCustody({ leases, snapshots });

const answer = (value: object) => process.stdout.write(`${JSON.stringify(value)}\n`);
answer({ ok: true, ready: true });
for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line) as { op: 'acquire' | 'changed' | 'release'; name: string; folder: string };
  try {
    if (command.op === 'acquire') await custody.acquire(command.name, command.folder);
    else if (command.op === 'changed') await custody.changed(command.name, command.folder);
    else await custody.release(command.name);
    answer({ ok: true });
  } catch (error) {
    answer({ ok: false, code: (error as { code?: string }).code, message: (error as Error).message });
  }
}
await leases.close();
await snapshots.close();
