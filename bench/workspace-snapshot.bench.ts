// Snapshot and restore of a workspace (50 MB by default: WORKSPACE_SNAPSHOT_BENCH_MB) against GNU
// tar doing the same with its output piped to a file: `tar -cf - . > file` and `tar -xf file`.
// The snapshot side includes hashing the bytes (the snapshot's name); the restore side includes
// every entry check and the digest check. The tasks take turns, their order rotating each round,
// and each ratio is the median of per-round ratios. Figures only, nothing fails on a time.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { restoreWorkspaceSnapshot } from '../src/worker/custody/snapshot-tar-reader.js';
import { writeWorkspaceSnapshot } from '../src/worker/custody/snapshot-tar-writer.js';
import { formatSpread, interleavedTimes, pairedRatio, quick, reportRatio, spreadOf } from './bench-support.js';

const megabytes = Number(process.env.WORKSPACE_SNAPSHOT_BENCH_MB ?? 50);
const rounds = Number(process.env.WORKSPACE_SNAPSHOT_BENCH_ROUNDS ?? (quick ? 3 : 7));

/** A workspace of about `megabytes` MB: a few large outputs, many small files, in nested folders. */
async function makeWorkspace(folder: string): Promise<void> {
  const total = megabytes * 1024 * 1024;
  const large = Math.floor(total * 0.8);
  await mkdir(path.join(folder, 'out'), { recursive: true });
  for (let index = 0; index < 4; index += 1)
    await writeFile(path.join(folder, 'out', `data-${index}.bin`), randomBytes(Math.floor(large / 4)));
  const small = Math.max(1, Math.floor((total - large) / 8192));
  for (let index = 0; index < small; index += 1) {
    const sub = path.join(folder, 'src', `module-${index % 20}`);
    await mkdir(sub, { recursive: true });
    await writeFile(path.join(sub, `file-${index}.txt`), `line ${index}\n`.repeat(700));
  }
}

/** GNU tar with its standard output going straight to `stdoutFile` (the shell's `> file`). */
async function runTar(args: string[], stdoutFile?: string): Promise<void> {
  const output = stdoutFile === undefined ? undefined : await open(stdoutFile, 'w');
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn('tar', args, { stdio: ['ignore', output?.fd ?? 'ignore', 'inherit'] });
      child.once('error', reject);
      child.once('close', (code) =>
        code === 0 ? resolve() : reject(new Error(`tar ${args.join(' ')} exited ${code}`)),
      );
    });
  } finally {
    await output?.close();
  }
}

async function snapshotToFile(folder: string, file: string): Promise<string> {
  const hash = createHash('sha256');
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(Readable.from(writeWorkspaceSnapshot(folder)), tap, createWriteStream(file));
  return hash.digest('hex');
}

async function emptied(folder: string): Promise<string> {
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder);
  return folder;
}

export async function run(): Promise<void> {
  const temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-snapshot-bench-'));
  try {
    const workspace = path.join(temporary, 'workspace');
    await makeWorkspace(workspace);
    const snapshotFile = path.join(temporary, 'snapshot.tar');
    const tarFile = path.join(temporary, 'gnu.tar');
    let digest = await snapshotToFile(workspace, snapshotFile);
    await runTar(['-cf', '-', '-C', workspace, '.'], tarFile);
    const restoreTarget = path.join(temporary, 'restored');
    const snapshotTimes = await interleavedTimes(
      {
        snapshot: async () => {
          digest = await snapshotToFile(workspace, snapshotFile);
        },
        tar: () => runTar(['-cf', '-', '-C', workspace, '.'], tarFile),
      },
      rounds,
    );
    const restoreTimes = await interleavedTimes(
      {
        restore: async () =>
          restoreWorkspaceSnapshot(createReadStream(snapshotFile), await emptied(restoreTarget), { digest }),
        tar: async () => runTar(['-xf', tarFile, '-C', await emptied(restoreTarget)]),
      },
      rounds,
    );
    // Both files exist, so their sizes say how much each format adds around the content.
    const sizes = { snapshot: (await stat(snapshotFile)).size, tar: (await stat(tarFile)).size };
    console.log(
      `${megabytes} MB workspace, ${rounds} rounds; snapshot ${sizes.snapshot} bytes, GNU tar ${sizes.tar} bytes`,
    );
    console.log(
      `snapshot (pax tar + SHA-256) ${formatSpread(spreadOf(snapshotTimes.snapshot), 0, ' ms')}, tar -cf > file ${formatSpread(spreadOf(snapshotTimes.tar), 0, ' ms')}`,
    );
    console.log(
      `restore (checked, digest verified) ${formatSpread(spreadOf(restoreTimes.restore), 0, ' ms')}, tar -xf ${formatSpread(spreadOf(restoreTimes.tar), 0, ' ms')}`,
    );
    const snapshotRatio = pairedRatio(snapshotTimes.snapshot, snapshotTimes.tar);
    const restoreRatio = pairedRatio(restoreTimes.restore, restoreTimes.tar);
    console.log(`ratio snapshot / tar ${formatSpread(snapshotRatio)}, restore / tar ${formatSpread(restoreRatio)}`);
    reportRatio({ benchmark: 'workspace-snapshot', comparison: 'snapshot / tar -cf', ratio: snapshotRatio });
    reportRatio({ benchmark: 'workspace-snapshot', comparison: 'restore / tar -xf', ratio: restoreRatio });
  } finally {
    await rm(temporary, { recursive: true, force: true });
  }
}
