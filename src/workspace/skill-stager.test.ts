import {
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../config/config-error.js';
import { createFsSkillRepository } from '../repository/fs-skill-repository.js';
import { createMemorySkillRepository } from '../repository/memory-skill-repository.js';
import type { SkillRepository } from '../repository/types.js';
import { LocalRuntime } from '../runtime/local-runtime.js';
import { SkillStagingError } from './errors.js';
import { createWorkspaceManager } from './workspace-manager.js';

let temporary: string;
let source: string;

beforeEach(async () => {
  temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-stage-'));
  source = path.join(temporary, 'skills', 'alpha');
  await mkdir(path.join(source, 'scripts'), { recursive: true });
  await writeFile(path.join(source, 'SKILL.md'), '---\nname: alpha\ndescription: A test skill.\n---\nBody\n');
  await writeFile(path.join(source, 'scripts', 'run.sh'), 'echo run\n', { mode: 0o755 });
  await writeFile(path.join(temporary, 'outside.txt'), 'host file');
});

afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

async function open(repository?: SkillRepository, sessionId = 's1') {
  const repo = repository ?? (await createFsSkillRepository({ roots: [path.join(temporary, 'skills')] }));
  const manager = createWorkspaceManager({
    runtime: new LocalRuntime(),
    repository: repo,
    baseDir: path.join(temporary, 'ws'),
  });
  return { manager, workspace: await manager.workspace(sessionId) };
}

describe('skill staging', () => {
  it('copies the skill with the out, work and inputs links, keeping the executable bit', async () => {
    const { workspace } = await open();
    const staged = await workspace.stageSkill('alpha');
    expect(staged).toMatchObject({ name: 'alpha', relativePath: 'skills/alpha', staged: true });
    const copy = path.join(workspace.root, 'skills', 'alpha');
    expect(await readFile(path.join(copy, 'scripts', 'run.sh'), 'utf8')).toBe('echo run\n');
    expect((await stat(path.join(copy, 'scripts', 'run.sh'))).mode & 0o111).not.toBe(0);
    expect(await readlink(path.join(copy, 'out'))).toBe('../../out');
    expect(await readlink(path.join(copy, 'work'))).toBe('../../work');
    expect(await readlink(path.join(copy, 'inputs'))).toBe('../../work/inputs');
    const metadata = await workspace.metadata();
    expect(metadata.skills.alpha).toMatchObject({ name: 'alpha', rel_path: 'skills/alpha', mode: 'copy' });
    expect(metadata.skills.alpha?.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('skips an unchanged skill and re-stages a changed one', async () => {
    const { workspace } = await open();
    const first = await workspace.stageSkill('alpha');
    const unchanged = await workspace.stageSkill('alpha');
    expect(unchanged.staged).toBe(false);
    expect(unchanged.digest).toBe(first.digest);
    await writeFile(path.join(source, 'scripts', 'run.sh'), 'echo changed\n');
    const changed = await workspace.stageSkill('alpha');
    expect(changed.staged).toBe(true);
    expect(changed.digest).not.toBe(first.digest);
    expect(await readFile(path.join(workspace.root, 'skills', 'alpha', 'scripts', 'run.sh'), 'utf8')).toBe(
      'echo changed\n',
    );
    expect((await workspace.stageSkill('alpha')).staged).toBe(false);
  });

  it('re-copies a touched file (no byte is read to decide), and is current again after', async () => {
    const { workspace } = await open();
    await workspace.stageSkill('alpha');
    const later = new Date(Date.now() + 5000);
    await utimes(path.join(source, 'scripts', 'run.sh'), later, later);
    expect((await workspace.stageSkill('alpha')).staged).toBe(true);
    expect((await workspace.stageSkill('alpha')).staged).toBe(false);
  });

  it('catches a rewrite of the same size whose modification time was put back', async () => {
    const file = path.join(source, 'scripts', 'run.sh');
    // A whole second, so setting it back is exact (a Date holds milliseconds, the disk nanoseconds).
    const stamp = new Date('2024-05-01T12:00:00Z');
    await utimes(file, stamp, stamp);
    const { workspace } = await open();
    await workspace.stageSkill('alpha');
    const before = await stat(file);
    await writeFile(file, 'echo RUN\n');
    await utimes(file, stamp, stamp);
    expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
    expect((await workspace.stageSkill('alpha')).staged).toBe(true);
    expect(await readFile(path.join(workspace.root, 'skills', 'alpha', 'scripts', 'run.sh'), 'utf8')).toBe(
      'echo RUN\n',
    );
  });

  it('catches a file replaced by another of the same size and modification time (save by rename)', async () => {
    const file = path.join(source, 'scripts', 'run.sh');
    const stamp = new Date('2024-05-01T12:00:00Z');
    await utimes(file, stamp, stamp);
    const { workspace } = await open();
    await workspace.stageSkill('alpha');
    const before = await stat(file);
    const replacement = path.join(source, 'scripts', '.run.sh.new');
    await writeFile(replacement, 'echo new\n', { mode: 0o755 });
    await utimes(replacement, stamp, stamp);
    await rename(replacement, file);
    expect((await stat(file)).size).toBe(before.size);
    expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
    expect((await workspace.stageSkill('alpha')).staged).toBe(true);
    expect(await readFile(path.join(workspace.root, 'skills', 'alpha', 'scripts', 'run.sh'), 'utf8')).toBe(
      'echo new\n',
    );
  });

  it('re-stages when the working copy lost its links', async () => {
    const { workspace } = await open();
    await workspace.stageSkill('alpha');
    await rm(path.join(workspace.root, 'skills', 'alpha', 'out'));
    expect((await workspace.stageSkill('alpha')).staged).toBe(true);
    expect((await lstat(path.join(workspace.root, 'skills', 'alpha', 'out'))).isSymbolicLink()).toBe(true);
  });

  it('never writes the source: a command changing the copy leaves the skill folder as it was', async () => {
    const { workspace } = await open();
    await workspace.stageSkill('alpha');
    const outcome = await workspace.run({
      skill: 'alpha',
      command: 'echo tampered > scripts/run.sh && rm SKILL.md && touch new-file',
      timeoutMs: 10_000,
      maxOutputBytes: 1024,
    });
    expect(outcome.result.exitCode).toBe(0);
    expect(await readFile(path.join(source, 'scripts', 'run.sh'), 'utf8')).toBe('echo run\n');
    await expect(stat(path.join(source, 'new-file'))).rejects.toThrow();
    expect(await readFile(path.join(source, 'SKILL.md'), 'utf8')).toContain('name: alpha');
  });

  it('keeps links inside the skill, and skips links that leave it with a warning', async () => {
    await symlink('scripts/run.sh', path.join(source, 'alias.sh'));
    await symlink(path.join(temporary, 'outside.txt'), path.join(source, 'leak.txt'));
    const { workspace } = await open();
    const staged = await workspace.stageSkill('alpha');
    expect(staged.warnings.join('\n')).toMatch(/skipped link "leak.txt": it leads out of the skill folder/);
    const copy = path.join(workspace.root, 'skills', 'alpha');
    expect(await readFile(path.join(copy, 'alias.sh'), 'utf8')).toBe('echo run\n');
    await expect(lstat(path.join(copy, 'leak.txt'))).rejects.toThrow();
  });

  it('does not copy secret-looking files into the working copy, and says so', async () => {
    await writeFile(path.join(source, '.env'), 'API_KEY=sk-not-for-the-sandbox\n');
    await mkdir(path.join(source, 'keys'), { recursive: true });
    await writeFile(path.join(source, 'keys', 'deploy.pem'), '-----BEGIN PRIVATE KEY-----\n');
    const { workspace } = await open();
    const staged = await workspace.stageSkill('alpha');
    const copy = path.join(workspace.root, 'skills', 'alpha');
    await expect(lstat(path.join(copy, '.env'))).rejects.toThrow();
    await expect(lstat(path.join(copy, 'keys', 'deploy.pem'))).rejects.toThrow();
    expect(await readFile(path.join(copy, 'scripts', 'run.sh'), 'utf8')).toBe('echo run\n');
    expect(staged.warnings.join('\n')).toMatch(/skipped "\.env": secret-looking files are not staged/);
    expect(staged.warnings.join('\n')).toMatch(/skipped "keys\/deploy\.pem"/);
  });

  it('writes skills defined in code from the repository', async () => {
    const repository = createMemorySkillRepository([
      {
        name: 'inline',
        description: 'Defined in code.',
        body: 'Run it.',
        files: { 'scripts/hello.sh': 'echo hello from code\n' },
      },
    ]);
    const { workspace } = await open(repository);
    const staged = await workspace.stageSkill('inline');
    expect(staged.staged).toBe(true);
    expect((await workspace.stageSkill('inline')).staged).toBe(false);
    const outcome = await workspace.run({
      skill: 'inline',
      command: 'bash scripts/hello.sh && test -f SKILL.md',
      timeoutMs: 10_000,
      maxOutputBytes: 1024,
    });
    expect(outcome.result.stdout).toBe('hello from code\n');
    expect(outcome.result.exitCode).toBe(0);
  });

  it("has written a run's record when run() resolves: removing the workspaces right after leaves nothing", async () => {
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const { workspace } = await open(undefined, `quick-${attempt}`);
      await workspace.run({ command: 'true', timeoutMs: 10_000, maxOutputBytes: 1024 });
      // A record still being written made this fail with ENOTEMPTY, or made the folder again.
      await rm(path.join(temporary, 'ws'), { recursive: true });
      await new Promise((resolve) => setTimeout(resolve, 5));
      await expect(stat(path.join(temporary, 'ws'))).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });

  it('refuses names that would climb or hide before reading anything', async () => {
    const { workspace } = await open();
    for (const name of ['../alpha', '.hidden', 'a/b', '']) {
      await expect(workspace.stageSkill(name)).rejects.toThrow(SkillStagingError);
    }
  });

  it('link mode links the source entries and is refused for an isolated runtime', async () => {
    const repository = await createFsSkillRepository({ roots: [path.join(temporary, 'skills')] });
    const manager = createWorkspaceManager({
      runtime: new LocalRuntime(),
      repository,
      baseDir: path.join(temporary, 'ws'),
      stageMode: 'link',
    });
    const workspace = await manager.workspace('linked');
    await workspace.stageSkill('alpha');
    expect(await readlink(path.join(workspace.root, 'skills', 'alpha', 'scripts'))).toBe(
      path.join(await import('node:fs/promises').then((fs) => fs.realpath(source)), 'scripts'),
    );
    const local = new LocalRuntime();
    const isolated = {
      kind: 'sandbox',
      isolated: true,
      guestPath: (p: string) => p,
      run: local.run,
      files: local.files,
    };
    expect(() => createWorkspaceManager({ runtime: isolated, repository, stageMode: 'link' })).toThrow(
      SkillboxConfigError,
    );
    expect(() => createWorkspaceManager({ runtime: isolated, repository, stageMode: 'link' })).toThrow(
      'createWorkspaceManager: option "stageMode" "link" needs a runtime that sees host paths; the sandbox runtime shows only the workspace, so use "copy"',
    );
  });

  it('a failed re-stage keeps the previous copy and its metadata', async () => {
    let version = 'one';
    let failing = false;
    const memory = () =>
      createMemorySkillRepository([
        { name: 'flaky', description: 'Changes.', body: 'b', files: { 'data.txt': version, 'more.txt': 'more' } },
      ]);
    let inner = memory();
    // Delegates to a real in-memory repository; readFile fails on demand, as a disk error would.
    const repository: SkillRepository = {
      list: () => inner.list(),
      get: (name) => inner.get(name),
      listFiles: (name) => inner.listFiles(name),
      readFile: async (name, file) => {
        if (failing && file === 'more.txt') throw new Error('disk read failed');
        return inner.readFile(name, file);
      },
      report: () => inner.report(),
      refresh: () => inner.refresh(),
    };
    const { workspace } = await open(repository);
    await workspace.stageSkill('flaky');
    const before = (await workspace.metadata()).skills.flaky;
    version = 'two';
    inner = memory();
    failing = true;
    await expect(workspace.stageSkill('flaky')).rejects.toThrow(/disk read failed/);
    expect(await readFile(path.join(workspace.root, 'skills', 'flaky', 'data.txt'), 'utf8')).toBe('one');
    expect((await workspace.metadata()).skills.flaky).toEqual(before);
    failing = false;
    expect((await workspace.stageSkill('flaky')).staged).toBe(true);
    expect(await readFile(path.join(workspace.root, 'skills', 'flaky', 'data.txt'), 'utf8')).toBe('two');
  });

  it('re-stages a copy that another workspace object replaced, even when the source looks as it did', async () => {
    const first = await open();
    await first.workspace.stageSkill('alpha');
    const script = path.join(source, 'scripts', 'run.sh');
    const original = await stat(script);
    // A second manager on the same folders (another process, say) stages a changed source...
    const second = await open(undefined, 's1');
    expect(second.workspace.root).toBe(first.workspace.root);
    await writeFile(script, 'echo other\n');
    expect((await second.workspace.stageSkill('alpha')).staged).toBe(true);
    // ...which then goes back, times included: only the copy's identity tells the first that it changed.
    await writeFile(script, 'echo run\n');
    await utimes(script, original.atime, original.mtime);
    expect((await first.workspace.stageSkill('alpha')).staged).toBe(true);
    expect(await readFile(path.join(first.workspace.root, 'skills', 'alpha', 'scripts', 'run.sh'), 'utf8')).toBe(
      'echo run\n',
    );
  });
});
