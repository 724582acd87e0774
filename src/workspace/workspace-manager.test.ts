import {
  chmod,
  chown,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../config/config-error.js';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import { LocalRuntime } from '../runtime/local-runtime.js';
import { WorkspaceBaseUnsafeError, WorkspaceManagerClosedError } from './errors.js';
import { createWorkspaceManager, sanitizeSessionId } from './workspace-manager.js';
import { readMetadata } from './workspace-metadata.js';

let temporary: string;
const repository = createMemorySkillRepository([{ name: 'one', description: 'One.', body: 'b' }]);
const manager = (extra: { ttlMs?: number } = {}) =>
  createWorkspaceManager({ runtime: new LocalRuntime(), repository, baseDir: path.join(temporary, 'base'), ...extra });

beforeEach(async () => {
  temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-manager-'));
});

afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

describe('workspace manager', () => {
  it('creates the layout with a private metadata.json and reuses it for the same session', async () => {
    const workspaces = manager();
    const workspace = await workspaces.workspace('chat/42');
    expect(path.basename(workspace.root)).toMatch(/^ws_chat_42-[0-9a-f]{32}_\d+$/);
    expect((await readdir(workspace.root)).sort()).toEqual(['metadata.json', 'out', 'runs', 'skills', 'work']);
    expect(await readdir(path.join(workspace.root, 'work'))).toEqual(expect.arrayContaining(['inputs']));
    expect((await stat(path.join(workspace.root, 'metadata.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(workspace.root)).mode & 0o777).toBe(0o700);
    expect((await readMetadata(workspace.files))?.session_id).toBe('chat/42');
    expect((await workspaces.workspace('chat/42')).root).toBe(workspace.root);
  });

  it("finds a session's workspace again after a restart, and never mixes ids that sanitise alike", async () => {
    const first = await manager().workspace('a/b');
    const again = await manager().workspace('a/b');
    expect(again.root).toBe(first.root);
    const other = await manager().workspace('a_b');
    expect(other.root).not.toBe(first.root);
    expect(sanitizeSessionId('a_b')).toBe('a_b');
    expect(sanitizeSessionId('a/b')).not.toBe(sanitizeSessionId('a?b'));
    expect(sanitizeSessionId('')).toMatch(/^anon-/);
  });

  it('opens one workspace when the same session asks concurrently', async () => {
    const workspaces = manager();
    const roots = await Promise.all([1, 2, 3, 4].map(() => workspaces.workspace('same').then((ws) => ws.root)));
    expect(new Set(roots).size).toBe(1);
    expect((await readdir(path.join(temporary, 'base'))).filter((name) => name.startsWith('ws_'))).toHaveLength(1);
  });

  it('cleans up on request and by age, leaving fresh workspaces', async () => {
    const workspaces = manager({ ttlMs: 60_000 });
    const old = await workspaces.workspace('old');
    const fresh = await workspaces.workspace('fresh');
    expect(await workspaces.cleanupExpired(Date.now() + 30_000)).toEqual([]);
    await fresh.updateMetadata(() => undefined);
    const removed = await workspaces.cleanupExpired(Date.now() + 61_000);
    expect(removed.sort()).toEqual(['fresh', 'old']);
    await expect(stat(old.root)).rejects.toThrow();
    const again = await workspaces.workspace('old');
    expect(again.root).not.toBe(old.root);
    expect(await workspaces.cleanup('old')).toBe(true);
    expect(await workspaces.cleanup('old')).toBe(false);
  });

  it('close() stops background processes, removes the workspaces it created, keeps those it found, then refuses', async () => {
    const found = await manager().workspace('from-before');
    const workspaces = manager();
    const again = await workspaces.workspace('from-before');
    expect(again.root).toBe(found.root);
    const made = await workspaces.workspace('made-here');
    const other = await workspaces.workspace('made-too');
    const pidFile = path.join(temporary, 'pid');
    await made.start({
      command: `echo $$ > ${pidFile}; exec sleep 60`,
      timeoutMs: 60_000,
      maxOutputBytes: 1024,
      maxConcurrent: 1,
    });
    let pid = Number.NaN;
    for (let tries = 0; tries < 100 && Number.isNaN(pid); tries += 1) {
      pid = Number.parseInt(await readFile(pidFile, 'utf8').catch(() => ''), 10);
      if (Number.isNaN(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(() => process.kill(pid, 0)).not.toThrow();

    const closing = workspaces.close();
    expect(workspaces.close()).toBe(closing);
    await closing;
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    await expect(stat(made.root)).rejects.toThrow(/ENOENT/);
    await expect(stat(other.root)).rejects.toThrow(/ENOENT/);
    expect((await stat(found.root)).isDirectory()).toBe(true);
    const left = (await readdir(path.join(temporary, 'base'))).filter((name) => name.startsWith('ws_'));
    expect(left).toEqual([path.basename(found.root)]);

    await expect(workspaces.workspace('made-here')).rejects.toThrow(WorkspaceManagerClosedError);
    await expect(workspaces.workspace('made-here')).rejects.toThrow(
      'WorkspaceManager.workspace: the manager was closed (close() stopped its processes and removed the workspaces it created); create a new one with createWorkspaceManager()',
    );
    await expect(workspaces.cleanup('from-before')).rejects.toMatchObject({ code: 'WORKSPACE_MANAGER_CLOSED' });
    await expect(workspaces.cleanupExpired()).rejects.toThrow(WorkspaceManagerClosedError);
  });

  it('close({ keepWorkspaces: true }) leaves its workspaces for a later manager (a resumable session)', async () => {
    const workspaces = manager();
    const kept = await workspaces.workspace('resumable');
    await workspaces.close({ keepWorkspaces: true });
    expect((await stat(kept.root)).isDirectory()).toBe(true);
    expect((await manager().workspace('resumable')).root).toBe(kept.root);
  });

  it('repairs a top-level folder the process replaced by a link, without touching the link target', async () => {
    const workspace = await manager().workspace('repair');
    const victim = path.join(temporary, 'victim');
    await writeFile(victim, 'keep');
    await rm(path.join(workspace.root, 'out'), { recursive: true });
    await symlink(temporary, path.join(workspace.root, 'out'));
    await workspace.ensureLayout();
    expect((await stat(path.join(workspace.root, 'out'))).isDirectory()).toBe(true);
    expect(await readdir(path.join(workspace.root, 'out'))).toEqual([]);
    expect((await stat(victim)).isFile()).toBe(true);
  });

  it('validates its options at construction', () => {
    const runtime = new LocalRuntime();
    expect(() => createWorkspaceManager({ runtime: {} as never, repository })).toThrow(/runtime/);
    expect(() => createWorkspaceManager({ runtime, repository: null as never })).toThrow(/repository/);
    expect(() => createWorkspaceManager({ runtime, repository, ttlMs: -1 })).toThrow(SkillboxConfigError);
    expect(() => createWorkspaceManager({ runtime, repository, ttlMs: -1 })).toThrow(
      'createWorkspaceManager: option "ttlMs" must be a positive number of milliseconds (or Infinity); got -1',
    );
    expect(() => createWorkspaceManager({ runtime, repository, ttlMs: Number.POSITIVE_INFINITY })).not.toThrow();
    expect(() => createWorkspaceManager({ runtime, repository, stageMode: 'move' as never })).toThrow(/stageMode/);
  });

  describe('default base folder', () => {
    const withTemporaryDirectory = async <T>(work: () => Promise<T>): Promise<T> => {
      const saved = process.env.TMPDIR;
      process.env.TMPDIR = temporary;
      try {
        return await work();
      } finally {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
      }
    };
    const defaultManager = () =>
      withTemporaryDirectory(async () =>
        createWorkspaceManager({ runtime: new LocalRuntime(), repository, artifacts: false }),
      );
    const expected = () => path.join(temporary, `skillbox-workspaces-${process.getuid?.()}`);

    it('is a folder of this user alone, created 0700', async () => {
      const workspaces = await defaultManager();
      expect(workspaces.baseDir).toBe(expected());
      const workspace = await workspaces.workspace('s');
      expect(path.dirname(workspace.root)).toBe(await realpath(expected()));
      expect((await stat(expected())).mode & 0o777).toBe(0o700);
    });

    it('refuses a link planted in its place, naming it, and writes nothing through it', async () => {
      const decoy = path.join(temporary, 'decoy');
      await mkdir(decoy, { mode: 0o700 });
      await symlink(decoy, expected());
      const workspaces = await defaultManager();
      await expect(workspaces.workspace('s')).rejects.toThrow(WorkspaceBaseUnsafeError);
      await expect(workspaces.workspace('s')).rejects.toThrow(new RegExp(`"${expected()}": it is a symbolic link`));
      expect(await readdir(decoy)).toEqual([]);
    });

    it('refuses a folder open to others or owned by someone else', async () => {
      await mkdir(expected());
      await chmod(expected(), 0o777);
      await expect((await defaultManager()).workspace('s')).rejects.toThrow(/its mode is 0777, not 0700/);
      await chmod(expected(), 0o700);
      if (process.getuid?.() === 0) {
        await chown(expected(), 65534, 65534);
        await expect((await defaultManager()).workspace('s')).rejects.toThrow(/owned by uid 65534/);
      }
      expect(await readdir(expected())).toEqual([]);
    });
  });
});
