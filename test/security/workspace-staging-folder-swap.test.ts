// Someone who can write to a skill's source folder while it is staged (a command of a session that
// stages the skill by link writes through to the source) flips a folder inside the skill with a
// link to a host folder, over and over, while another session stages the skill by copy. The host
// opens each file without following a link at its last name, but a folder earlier on the path is
// resolved again at the copy: without a check on what was opened, the host copies the file the
// link leads to (a host secret) into that session's workspace.
import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { LocalRuntime } from '../../src/runtime/local-runtime.js';
import { createWorkspaceManager } from '../../src/workspace/workspace-manager.js';
import { startFolderFlipper } from './folder-flipper.js';

let temporary: string;

beforeEach(async () => {
  temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-staging-folder-swap-'));
});

afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

describe('a folder inside a skill flipped with a link to a host folder while the skill is copied', () => {
  it('never puts the host file into the workspace: each staging copies the skill file, skips the link, or fails', async () => {
    const skills = path.join(temporary, 'skills');
    const source = path.join(skills, 'flip');
    await mkdir(path.join(source, 'sub'), { recursive: true });
    await writeFile(path.join(source, 'SKILL.md'), '---\nname: flip\ndescription: Has a folder.\n---\nBody\n');
    // Large enough that the copy goes both ways: by direct calls and through the thread pool.
    await writeFile(path.join(source, 'sub', 'notes.txt'), 'skill notes');
    await writeFile(path.join(source, 'sub', 'data.bin'), Buffer.alloc(256 * 1024, 's'));
    const outside = path.join(temporary, 'host-folder');
    await mkdir(outside);
    await writeFile(path.join(outside, 'notes.txt'), 'host secret');
    await writeFile(path.join(outside, 'data.bin'), Buffer.alloc(256 * 1024, 'h'));
    await symlink(outside, path.join(source, 'sub.other'));

    const repository = await createFsSkillRepository({ roots: [skills] });
    const manager = createWorkspaceManager({
      runtime: new LocalRuntime(),
      repository,
      baseDir: path.join(temporary, 'ws'),
    });
    const flipper = await startFolderFlipper(source, 'sub', 'sub.other');
    const leaked: string[] = [];
    const refusals: string[] = [];
    try {
      for (let attempt = 0; attempt < 150; attempt += 1) {
        const workspace = await manager.workspace(`victim-${attempt}`);
        try {
          await workspace.stageSkill('flip');
        } catch (error) {
          refusals.push((error as Error).message);
          continue;
        }
        const staged = path.join(workspace.root, 'skills', 'flip', 'sub');
        const entry = await lstat(staged).catch(() => undefined);
        if (entry === undefined || entry.isSymbolicLink()) {
          // Scanned as the link it was then: skipped (it leads out of the skill folder).
          continue;
        }
        const notes = await readFile(path.join(staged, 'notes.txt'), 'utf8').catch(() => 'absent');
        const data = await readFile(path.join(staged, 'data.bin')).catch(() => Buffer.alloc(0));
        if (notes === 'host secret') leaked.push(`${attempt}: notes.txt`);
        if (data[0] === 'h'.charCodeAt(0)) leaked.push(`${attempt}: data.bin`);
      }
    } finally {
      flipper.kill('SIGKILL');
    }
    expect(leaked).toEqual([]);
    // The attack raced the copies, and the host refused them naming the file it would not follow.
    expect(refusals.some((message) => /sub\/(notes\.txt|data\.bin).*leads out of/.test(message))).toBe(true);
  }, 60_000);
});
