import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { WorkspaceSnapshotStore } from '../../worker/custody/snapshot-store.js';
import type { WorkspaceCustody } from '../../worker/workspace-custody.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { parseCommandArguments } from '../parse-command-arguments.js';

const usage = `Usage: skillbox worker --secret-file FILE [--listen HOST:PORT] [options]

Serves skill runs in the bubblewrap sandbox to agent workers over HTTP (docs/workers.md). Agent
workers use it with createRemoteRuntime({ url, secret }) from skillbox/worker. Every request must
be signed with the shared secret; the worker never starts without one and never prints it.

Options:
  --secret-file FILE   the shared secret (at least 32 bytes; one trailing newline is dropped);
                       the file must not be readable by group or others (chmod 600)
  --listen HOST:PORT   where to listen (default 127.0.0.1:7070; port 0 picks a free one)
  --workspaces DIR     where workspaces live (default a temporary folder, removed on exit)
  --ledger URL         a PostgreSQL run ledger shared by the workers (postgres://...)
  --custody URL        workspace leases and snapshots in PostgreSQL (postgres://...): any worker
                       sharing it takes over a workspace whose holder is gone
  --custody-lease-ms MS  how long a workspace stays held after its worker stopped renewing (default 15000)
  --snapshots S3URL    keep the snapshots in S3 instead (s3://bucket/prefix/; the AWS SDK's
                       usual settings: AWS_REGION, AWS_ENDPOINT_URL_S3, credentials); needs --custody
  --worker-id ID       this worker's name in the ledger (default host-pid-random)
  --max-runs N         runs at once (default: the number of CPUs)
  --max-queued N       runs waiting at most; beyond, the busy answer (default 2 x --max-runs)
  --queue-wait-ms MS   how long a run may wait for a turn (default 30000)
  --run-lease-ms MS    how long a dead worker's runs stay "running" before they count as lost (default 30000)

Prints one line "skillbox worker listening on URL (worker ID)" when ready; stops on SIGTERM or SIGINT.
`;

function positive(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]+$/.test(value) || Number(value) < 1)
    throw new CliUsageError(`${option} must be a positive integer, got "${value}"`);
  return Number(value);
}

function listenAddress(value: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+):([0-9]{1,5})$/.exec(value);
  if (match === null || Number(match[2]) > 65_535)
    throw new CliUsageError(`--listen must be HOST:PORT (such as 127.0.0.1:7070), got "${value}"`);
  return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port: Number(match[2]) };
}

async function readSecret(file: string): Promise<string> {
  const info = await stat(file).catch(() => undefined);
  if (info === undefined || !info.isFile()) throw new CliUsageError(`--secret-file: ${file} is not a file`);
  if ((info.mode & 0o077) !== 0)
    throw new CliUsageError(
      `--secret-file: ${file} is readable by group or others (mode ${(info.mode & 0o777).toString(8)}); chmod 600 it`,
    );
  const text = (await readFile(file, 'utf8')).replace(/\r?\n$/, '');
  if (Buffer.byteLength(text, 'utf8') < 32)
    throw new CliUsageError(`--secret-file: ${file} holds fewer than 32 bytes (make one with: openssl rand -hex 32)`);
  return text;
}

async function run(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArguments({
    args,
    options: {
      'secret-file': { type: 'string' },
      listen: { type: 'string', default: '127.0.0.1:7070' },
      workspaces: { type: 'string' },
      ledger: { type: 'string' },
      custody: { type: 'string' },
      snapshots: { type: 'string' },
      'custody-lease-ms': { type: 'string' },
      'worker-id': { type: 'string' },
      'max-runs': { type: 'string' },
      'max-queued': { type: 'string' },
      'queue-wait-ms': { type: 'string' },
      'run-lease-ms': { type: 'string' },
    },
    strict: true,
  });
  if (values['secret-file'] === undefined) throw new CliUsageError('--secret-file is required: a worker is never open');
  const secret = await readSecret(resolve(io.cwd, values['secret-file']));
  const { host, port } = listenAddress(values.listen);
  const maxQueued = values['max-queued'];
  if (maxQueued !== undefined && !/^[0-9]+$/.test(maxQueued))
    throw new CliUsageError(`--max-queued must be a non-negative integer, got "${maxQueued}"`);
  if (values.ledger !== undefined && !/^postgres(ql)?:\/\//.test(values.ledger))
    throw new CliUsageError('--ledger must be a postgres:// URL');
  for (const flag of ['custody'] as const)
    if (values[flag] !== undefined && !/^postgres(ql)?:\/\//.test(values[flag]))
      throw new CliUsageError(`--${flag} must be a postgres:// URL`);
  if (values.snapshots !== undefined && values.custody === undefined)
    throw new CliUsageError('--snapshots needs --custody (the leases and the current-snapshot pointers live there)');
  const snapshotsUrl = values.snapshots === undefined ? undefined : s3Location(values.snapshots);
  const workerId = values['worker-id'] ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const { createSandboxWorker } = await import('../../worker/sandbox-worker.js');
  const custodyLeaseMs = positive(values['custody-lease-ms'], '--custody-lease-ms');
  const custody =
    values.custody === undefined
      ? undefined
      : await openCustody(values.custody, workerId, snapshotsUrl, custodyLeaseMs);
  const ledger =
    values.ledger === undefined
      ? undefined
      : await (await import('../../worker/postgres-run-ledger.js')).openPostgresRunLedger({
          connectionString: values.ledger,
        });
  const maxConcurrentRuns = positive(values['max-runs'], '--max-runs');
  const queueWaitMs = positive(values['queue-wait-ms'], '--queue-wait-ms');
  const runLeaseMs = positive(values['run-lease-ms'], '--run-lease-ms');
  const worker = await createSandboxWorker({
    secret,
    host,
    port,
    ...(values.workspaces === undefined ? {} : { workspacesFolder: resolve(io.cwd, values.workspaces) }),
    workerId,
    ...(custody === undefined ? {} : { custody: custody.custody }),
    ...(maxConcurrentRuns === undefined ? {} : { maxConcurrentRuns }),
    ...(maxQueued === undefined ? {} : { maxQueuedRuns: Number(maxQueued) }),
    ...(queueWaitMs === undefined ? {} : { queueWaitMs }),
    ...(runLeaseMs === undefined ? {} : { runLeaseMs }),
    ...(ledger === undefined ? {} : { ledger }),
  });
  // Listening for SIGTERM before the line is printed: a supervisor that stops the worker as soon as
  // it reads the line must not kill it before its handler is there.
  const stopped = new Promise<void>((done) => {
    const stop = (): void => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      done();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  io.stdout(`skillbox worker listening on ${worker.url} (worker ${worker.workerId})\n`);
  await stopped;
  await worker.close();
  await custody?.close();
  return 0;
}

/** `s3://bucket/prefix/` as the S3 store's bucket and key prefix. */
function s3Location(value: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(value);
  if (match === null) throw new CliUsageError(`--snapshots must be s3://BUCKET[/PREFIX], got "${value}"`);
  const prefix = match[2] ?? '';
  return { bucket: match[1] as string, prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/` };
}

/** Leases in PostgreSQL; snapshots there too (large objects) or in S3. */
async function openCustody(
  connectionString: string,
  workerId: string,
  s3: { bucket: string; prefix: string } | undefined,
  leaseMs: number | undefined,
): Promise<{ custody: WorkspaceCustody; close(): Promise<void> }> {
  const { openPostgresWorkspaceLeases } = await import('../../worker/custody/postgres-workspace-leases.js');
  const { createWorkspaceCustody } = await import('../../worker/custody/create-workspace-custody.js');
  const leases = await openPostgresWorkspaceLeases({
    connectionString,
    workerId,
    ...(leaseMs === undefined ? {} : { leaseMs }),
  });
  let snapshots: WorkspaceSnapshotStore;
  if (s3 === undefined) {
    snapshots = await (await import('../../worker/custody/postgres-snapshot-store.js')).openPostgresSnapshotStore({
      connectionString,
    });
  } else {
    const { S3Client } = await import('@aws-sdk/client-s3');
    const { createS3SnapshotStore } = await import('../../worker/custody/s3-snapshot-store.js');
    snapshots = createS3SnapshotStore({ client: new S3Client({}), bucket: s3.bucket, prefix: s3.prefix });
  }
  return {
    custody: createWorkspaceCustody({ leases, snapshots }),
    // After the worker closed (and custody handed its workspaces over): the pools go.
    close: async () => {
      await leases.close();
      await snapshots.close();
    },
  };
}

export const workerCommand: CliCommand = {
  name: 'worker',
  usage,
  run,
};
