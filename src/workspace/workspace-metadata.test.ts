import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsSkillRepository } from '../repository/fs-skill-repository.js';
import { LocalRuntime } from '../runtime/local-runtime.js';
import { hostRecordPath } from './host-metadata-record.js';
import { createWorkspaceManager } from './workspace-manager.js';
import { readMetadata } from './workspace-metadata.js';

let temporary: string;

beforeEach(async () => {
  temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-metadata-'));
  const source = path.join(temporary, 'skills', 'alpha');
  await import('node:fs/promises').then(({ mkdir }) => mkdir(source, { recursive: true }));
  await writeFile(path.join(source, 'SKILL.md'), '---\nname: alpha\ndescription: A test skill.\n---\nBody\n');
  await writeFile(path.join(source, 'data.txt'), 'one');
});

afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

/** The workspace of `sessionId` through a new manager: what a new process finds. */
async function open(sessionId = 's1') {
  const repository = await createFsSkillRepository({ roots: [path.join(temporary, 'skills')] });
  const manager = createWorkspaceManager({
    runtime: new LocalRuntime(),
    repository,
    baseDir: path.join(temporary, 'ws'),
    artifacts: false,
  });
  return manager.workspace(sessionId);
}

const run = { timeoutMs: 10_000, maxOutputBytes: 4096 };

describe('workspace metadata', () => {
  it('writes nothing for a run: the record and metadata.json stay as staging left them', async () => {
    const workspace = await open();
    await workspace.stageSkill('alpha');
    await workspace.flushMetadata();
    const record = await stat(hostRecordPath(workspace.root));
    const copy = await readFile(path.join(workspace.root, 'metadata.json'), 'utf8');
    for (let index = 0; index < 3; index += 1) await workspace.run({ ...run, command: 'true', skill: 'alpha' });
    await workspace.flushMetadata();
    const after = await stat(hostRecordPath(workspace.root));
    expect([after.ino, after.mtimeMs]).toEqual([record.ino, record.mtimeMs]);
    expect(await readFile(path.join(workspace.root, 'metadata.json'), 'utf8')).toBe(copy);
    expect(JSON.parse(copy)).not.toHaveProperty('runs');
  });

  it('records every change on disk once flushed, and loses none of several concurrent ones', async () => {
    const workspace = await open();
    await Promise.all(
      ['a', 'b', 'c'].map((key) =>
        workspace.updateMetadata(
          (metadata) => void metadata.inputs.push({ from: key, to: key, mode: 'copy', ts: 'now' }),
        ),
      ),
    );
    await workspace.flushMetadata();
    const onDisk = await readMetadata(workspace.files);
    expect(onDisk?.inputs.map((input) => input.from).sort()).toEqual(['a', 'b', 'c']);
    expect(onDisk).toEqual(await workspace.metadata());
  });

  it('a change that throws changes nothing, in memory or on disk', async () => {
    const workspace = await open();
    await workspace.stageSkill('alpha');
    await workspace.flushMetadata();
    const before = await workspace.metadata();
    await expect(
      workspace.updateMetadata((metadata) => {
        delete metadata.skills.alpha;
        throw new Error('half-way');
      }),
    ).rejects.toThrow('half-way');
    expect(await workspace.metadata()).toEqual(before);
    expect(await readMetadata(workspace.files)).toEqual(before);
  });

  it('hands out copies: changing what metadata() returned changes nothing', async () => {
    const workspace = await open();
    const copy = await workspace.metadata();
    copy.inputs.push({ from: 'forged', to: 'work/inputs/forged', mode: 'copy', ts: 'now' });
    expect((await workspace.metadata()).inputs).toEqual([]);
  });

  it('a command that rewrites metadata.json cannot make staging skip a changed skill, and the next write restores the file', async () => {
    const workspace = await open();
    await workspace.stageSkill('alpha');
    // Forge a record claiming the copy already matches whatever the source will be.
    const forged = await workspace.run({
      ...run,
      argv: [
        'python3',
        '-c',
        'import json,sys; p=sys.argv[1]; m=json.load(open(p)); m["skills"]={}; m["session_id"]="someone-else"; json.dump(m, open(p,"w"))',
        path.join(workspace.root, 'metadata.json'),
      ],
    });
    expect(forged.result.exitCode).toBe(0);
    await writeFile(path.join(temporary, 'skills', 'alpha', 'data.txt'), 'two');
    expect((await workspace.stageSkill('alpha')).staged).toBe(true);
    expect(await readFile(path.join(workspace.root, 'skills', 'alpha', 'data.txt'), 'utf8')).toBe('two');
    await workspace.flushMetadata();
    const onDisk = await readMetadata(workspace.files);
    expect(onDisk?.session_id).toBe('s1');
    expect(Object.keys(onDisk?.skills ?? {})).toEqual(['alpha']);
  });

  it('reports a failed write from flushMetadata, and a later write repairs the file', async () => {
    const workspace = await open();
    await workspace.flushMetadata();
    // A folder where the file should be: the rename over it fails.
    await rm(path.join(workspace.root, 'metadata.json'));
    await import('node:fs/promises').then(({ mkdir }) =>
      mkdir(path.join(workspace.root, 'metadata.json', 'blocker'), { recursive: true }),
    );
    await workspace.stageSkill('alpha');
    await expect(workspace.flushMetadata()).rejects.toThrow();
    await rm(path.join(workspace.root, 'metadata.json'), { recursive: true });
    await workspace.flushMetadata();
    expect(Object.keys((await readMetadata(workspace.files))?.skills ?? {})).toEqual(['alpha']);
  });

  it('a new process reads the host record, not metadata.json: a forged or removed file changes nothing it believes', async () => {
    const workspace = await open();
    await workspace.stageSkill('alpha');
    await workspace.flushMetadata();
    const staged = (await workspace.metadata()).skills.alpha;
    expect(staged?.copy_inode).toEqual(expect.any(Number));
    await writeFile(
      path.join(workspace.root, 'metadata.json'),
      JSON.stringify({ version: 1, session_id: 's1', skills: { beta: { ...staged, name: 'beta' } } }),
    );
    const reopened = await open();
    expect(reopened).not.toBe(workspace);
    expect((await reopened.metadata()).skills).toEqual({ alpha: staged });
    expect((await reopened.stageSkill('alpha')).staged).toBe(false);
  });

  it('a workspace without a host record counts every copy under skills/ as staged, and rebuilds it when staged', async () => {
    const workspace = await open();
    await workspace.stageSkill('alpha');
    await workspace.flushMetadata();
    // As a workspace made by a version that kept only metadata.json, which a command emptied.
    await rm(hostRecordPath(workspace.root));
    await writeFile(path.join(workspace.root, 'metadata.json'), JSON.stringify({ version: 1, session_id: 's1' }));
    const reopened = await open();
    expect(Object.keys((await reopened.metadata()).skills)).toEqual(['alpha']);
    expect((await reopened.stageSkill('alpha')).staged).toBe(true);
  });

  it('a skill another process staged is counted and kept: the first process neither misses it nor drops it on its next write', async () => {
    const first = await open();
    await first.metadata();
    const second = await open();
    expect(second).not.toBe(first);
    await second.stageSkill('alpha');
    await second.flushMetadata();
    expect(await first.stagedSkillNames()).toEqual(['alpha']);
    await first.run({ ...run, command: 'true' });
    await first.flushMetadata();
    expect(Object.keys((await readMetadata(first.files))?.skills ?? {})).toEqual(['alpha']);
    expect(await (await open()).stagedSkillNames()).toEqual(['alpha']);
  });

  it('a process that wrote the record reads it back before its next write once another process wrote it since', async () => {
    const first = await open();
    // The first process writes the record itself (a run), so it knows the version it left.
    await first.run({ ...run, command: 'true' });
    await first.flushMetadata();
    const second = await open();
    await second.stageSkill('alpha');
    await second.flushMetadata();
    // Its next write finds someone else's version on disk, reads it, and keeps the skill staged there.
    await first.run({ ...run, command: 'true' });
    await first.flushMetadata();
    expect(await (await open()).stagedSkillNames()).toEqual(['alpha']);
    expect(Object.keys((await readMetadata(first.files))?.skills ?? {})).toEqual(['alpha']);
  });
});
