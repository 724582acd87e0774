// A skill's files are the skill author's; the working copy is the host's (made by the host user,
// root in many containers). An author who ships a setuid or setgid program hopes staging keeps the
// bit on a copy the host user owns. Small files and large ones are copied by different paths
// (src/runtime/build-tree.ts), so both are attacked.
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { LocalRuntime } from '../../src/runtime/local-runtime.js';
import { createWorkspaceManager } from '../../src/workspace/workspace-manager.js';

let temporary: string;

beforeEach(async () => {
  temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-staging-modes-'));
});

afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

describe('staging a skill whose files carry special mode bits', () => {
  it('copies setuid, setgid and sticky files without those bits, readable and writable by the owner', async () => {
    const source = path.join(temporary, 'skills', 'suid');
    await mkdir(path.join(source, 'bin'), { recursive: true });
    await writeFile(path.join(source, 'SKILL.md'), '---\nname: suid\ndescription: Ships special modes.\n---\nBody\n');
    const large = Buffer.alloc(512 * 1024, 7);
    const files: Array<[string, Buffer | string, number]> = [
      ['bin/small-setuid', '#!/bin/sh\nid\n', 0o4755],
      ['bin/small-setgid', '#!/bin/sh\nid\n', 0o2755],
      ['bin/small-sticky-readonly', 'data\n', 0o1444],
      ['bin/large-setuid', large, 0o4755],
      ['bin/large-readonly', large, 0o444],
    ];
    for (const [name, content, mode] of files) {
      await writeFile(path.join(source, name), content);
      await chmod(path.join(source, name), mode);
    }
    expect((await stat(path.join(source, 'bin/small-setuid'))).mode & 0o7777).toBe(0o4755);

    const repository = await createFsSkillRepository({ roots: [path.join(temporary, 'skills')] });
    const manager = createWorkspaceManager({
      runtime: new LocalRuntime(),
      repository,
      baseDir: path.join(temporary, 'ws'),
    });
    const workspace = await manager.workspace('attacker');
    await workspace.stageSkill('suid');

    const copy = path.join(workspace.root, 'skills', 'suid');
    const expected: Record<string, number> = {
      'bin/small-setuid': 0o755,
      'bin/small-setgid': 0o755,
      'bin/small-sticky-readonly': 0o644,
      'bin/large-setuid': 0o755,
      'bin/large-readonly': 0o644,
    };
    for (const [name, mode] of Object.entries(expected)) {
      expect({ name, mode: (await stat(path.join(copy, name))).mode & 0o7777 }).toEqual({ name, mode });
    }
    expect(await readFile(path.join(copy, 'bin/large-setuid'))).toEqual(large);
    expect(await readFile(path.join(copy, 'bin/small-setuid'), 'utf8')).toBe('#!/bin/sh\nid\n');
    await manager.cleanup('attacker');
  });
});
