// Run by workspace-cleanup.test.ts, as root and as an unprivileged user: leaves in two workspaces
// what a script can leave (read-only and unreadable folders, a folder chain deeper than PATH_MAX,
// a FIFO or a 1 GB file as metadata.json), then asks for their removal. Prints what was left.
import { execFileSync } from 'node:child_process';
import { chmod, lstat, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createMemorySkillRepository } from '../../src/repository/memory-skill-repository.js';
import { LocalRuntime } from '../../src/runtime/local-runtime.js';
import { createWorkspaceManager } from '../../src/workspace/workspace-manager.js';

const baseDir = process.argv[2] as string;
const repository = createMemorySkillRepository([{ name: 'tiny', description: 'Tiny.', body: 'b' }]);
const workspaces = createWorkspaceManager({ runtime: new LocalRuntime(), repository, baseDir, ttlMs: 60_000 });

async function leaveMess(root: string): Promise<void> {
  const locked = path.join(root, 'work', 'locked');
  await mkdir(path.join(locked, 'inner'), { recursive: true });
  await writeFile(path.join(locked, 'inner', 'file'), 'x');
  await chmod(path.join(locked, 'inner'), 0o000);
  await chmod(locked, 0o500);
  const name = 'd'.repeat(200);
  // Relative mkdir/cd, as a script would: 30 levels of 201 bytes pass PATH_MAX (4096).
  execFileSync(
    'bash',
    ['-c', `cd work && for i in $(seq 30); do mkdir ${name} && cd ${name} || exit 1; done; echo deep > f`],
    { cwd: root },
  );
}

const removed = await workspaces.workspace('by-request');
await leaveMess(removed.root);
execFileSync('bash', ['-c', 'rm -f metadata.json && mkfifo metadata.json'], { cwd: removed.root });
const expired = await workspaces.workspace('by-age');
await leaveMess(expired.root);
execFileSync('truncate', ['-s', '1G', 'metadata.json'], { cwd: expired.root });
const orphan = await workspaces.workspace('no-metadata');
execFileSync('rm', ['-f', 'metadata.json'], { cwd: orphan.root });

const exists = (target: string) =>
  lstat(target).then(
    () => true,
    () => false,
  );
const started = Date.now();
const rssBefore = process.memoryUsage().rss;
const cleanup = await workspaces.cleanup('by-request').then(String, (error: Error) => `error: ${error.message}`);
const sweep = await workspaces.cleanupExpired(Date.now() + 120_000).then(
  (ids) => ids.sort().join(','),
  (error: Error) => `error: ${error.message}`,
);
console.log(
  JSON.stringify({
    uid: process.getuid?.(),
    cleanup,
    sweep,
    left: {
      byRequest: await exists(removed.root),
      byAge: await exists(expired.root),
      noMetadata: await exists(orphan.root),
    },
    milliseconds: Date.now() - started,
    rssGrowthMb: Math.round((process.memoryUsage().rss - rssBefore) / 1024 / 1024),
  }),
);
