// Attack: someone who can write into a skills folder after it was scanned (a shared folder, a model
// that writes skills) swaps a listed SKILL.md, or the skill's folder, for a link to a place outside
// the root, one with a frontmatter of its own, so that the next listing or load reads that file as
// the skill, or serves the outside folder's other files. The scan skips a SKILL.md or a folder
// linking out of the root; the reads after it (one per `list()` to see edits, one per `get()` for
// the body, `readFile`, the docs listing) must not follow a link the scan never saw.
import { mkdir, mkdtemp, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { startFolderFlipper } from './folder-flipper.js';

const secret = 'SECRET-FROM-OUTSIDE-THE-ROOT';

describe('a SKILL.md swapped for a link after the scan', () => {
  let base: string;
  let root: string;
  let outside: string;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'skillbox-skill-file-swap-'));
    root = join(base, 'skills');
    await mkdir(join(root, 'notes'), { recursive: true });
    await writeFile(
      join(root, 'notes', 'SKILL.md'),
      '---\nname: notes\ndescription: Takes notes.\n---\nWrite notes.\n',
    );
    outside = join(base, 'private.md');
    await writeFile(outside, `---\nname: notes\ndescription: Stolen ${secret}\n---\n${secret}\n`);
  });

  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  async function swapForLink(): Promise<void> {
    await unlink(join(root, 'notes', 'SKILL.md'));
    await symlink(outside, join(root, 'notes', 'SKILL.md'));
  }

  it('is not followed by the next list()', async () => {
    const repository = await FsSkillRepository.open({ roots: [root] });
    expect((await repository.list()).map((skill) => skill.description)).toEqual(['Takes notes.']);
    await swapForLink();
    const listed = await repository.list();
    expect(JSON.stringify(listed)).not.toContain(secret);
    expect(JSON.stringify(await repository.report())).not.toContain(secret);
  });

  it('is not followed by get() for the body', async () => {
    const repository = await FsSkillRepository.open({ roots: [root] });
    await repository.list();
    await swapForLink();
    const loaded = await repository.get('notes').then(
      (skill) => JSON.stringify(skill),
      (error: Error) => error.message,
    );
    expect(loaded).not.toContain(secret);
  });

  it('is skipped with its reason, and a refresh() judges the link as the scan does', async () => {
    const repository = await FsSkillRepository.open({ roots: [root] });
    await repository.list();
    await swapForLink();
    expect(await repository.list()).toEqual([]);
    expect((await repository.report()).skipped).toEqual([
      expect.objectContaining({ path: join(root, 'notes', 'SKILL.md'), reason: expect.stringMatching(/link/) }),
    ]);
    await repository.refresh();
    expect((await repository.report()).skipped).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/leads out of the root/) }),
    ]);
  });

  describe('the skill folder swapped for a link to an outside folder', () => {
    async function swapFolder(): Promise<void> {
      await writeFile(join(base, 'private-notes.md'), `${secret} key\n`);
      await mkdir(join(base, 'outside-skill'));
      await writeFile(
        join(base, 'outside-skill', 'SKILL.md'),
        `---\nname: notes\ndescription: ${secret}\n---\n${secret}\n`,
      );
      await writeFile(join(base, 'outside-skill', 'private-notes.md'), `${secret} key\n`);
      await rename(join(root, 'notes'), join(base, 'old-notes'));
      await symlink(join(base, 'outside-skill'), join(root, 'notes'));
    }

    it('serves no file of the outside folder through readFile() or listFiles()', async () => {
      const repository = await FsSkillRepository.open({ roots: [root] });
      await repository.list();
      await swapFolder();
      for (const attempt of [
        repository.readFile('notes', 'private-notes.md').then((data) => data.toString()),
        repository.listFiles('notes').then((names) => names.join(',')),
      ])
        await expect(attempt).rejects.toThrow();
    });

    it('refuses readFile() through the folder moved out of the root and linked back, its SKILL.md unchanged', async () => {
      const repository = await FsSkillRepository.open({ roots: [root] });
      await repository.list();
      // The same SKILL.md (same inode and times) now lives outside, beside a private file.
      await rename(join(root, 'notes'), join(base, 'moved-notes'));
      await writeFile(join(base, 'moved-notes', 'private-notes.md'), `${secret} key\n`);
      await symlink(join(base, 'moved-notes'), join(root, 'notes'));
      await expect(repository.readFile('notes', 'private-notes.md')).rejects.toThrow(
        /the skill folder now leads to .*moved-notes, not where the scan found it/,
      );
      await expect(repository.listFiles('notes')).rejects.toThrow(/the skill folder now leads to .*moved-notes/);
      await expect(repository.get('notes')).rejects.toThrow(/the skill folder now leads to .*moved-notes/);
    });

    it('is not listed or loaded from there once list() sees the change', async () => {
      const repository = await FsSkillRepository.open({ roots: [root] });
      await repository.list();
      await swapFolder();
      expect(JSON.stringify(await repository.list())).not.toContain(secret);
      const loaded = await repository.get('notes').then(
        (skill) => JSON.stringify(skill),
        (error: Error) => error.message,
      );
      expect(loaded).not.toContain(secret);
      expect((await repository.report()).skipped).toEqual([
        expect.objectContaining({ reason: expect.stringMatching(/skill folder now leads to .*outside-skill/) }),
      ]);
    });
  });
});

describe('a folder inside a skill flipped with a link to a host folder while its files are read', () => {
  let base: string;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'skillbox-skill-folder-flip-'));
  });

  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('never gives readFile() the host file: each read returns the skill file or fails naming it', async () => {
    const root = join(base, 'skills');
    await mkdir(join(root, 'flip', 'sub'), { recursive: true });
    await writeFile(join(root, 'flip', 'SKILL.md'), '---\nname: flip\ndescription: Has a folder.\n---\nBody\n');
    await writeFile(join(root, 'flip', 'sub', 'notes.txt'), 'skill notes');
    await mkdir(join(base, 'host-folder'));
    await writeFile(join(base, 'host-folder', 'notes.txt'), secret);
    await symlink(join(base, 'host-folder'), join(root, 'flip', 'sub.other'));
    const repository = await FsSkillRepository.open({ roots: [root] });
    await repository.list();
    const flipper = await startFolderFlipper(join(root, 'flip'), 'sub', 'sub.other');
    const served: string[] = [];
    const refusals: string[] = [];
    try {
      for (let attempt = 0; attempt < 1500; attempt += 1) {
        await repository.readFile('flip', 'sub/notes.txt').then(
          (bytes) => served.push(bytes.toString('utf8')),
          (error: Error) => refusals.push(error.message),
        );
      }
    } finally {
      flipper.kill('SIGKILL');
    }
    expect(served.filter((text) => text !== 'skill notes')).toEqual([]);
    // The flips raced the reads: some were refused, naming the file.
    expect(refusals.length).toBeGreaterThan(0);
    for (const message of refusals) expect(message).toMatch(/sub\/notes\.txt/);
  }, 60_000);

  it('never lists or loads a host SKILL.md through a folder above a skill flipped with a link', async () => {
    const root = join(base, 'skills');
    await mkdir(join(root, 'x', 'skill'), { recursive: true });
    await writeFile(join(root, 'x', 'skill', 'SKILL.md'), '---\nname: flip\ndescription: Ours.\n---\nBody\n');
    await mkdir(join(base, 'host', 'skill'), { recursive: true });
    await writeFile(
      join(base, 'host', 'skill', 'SKILL.md'),
      `---\nname: flip\ndescription: ${secret}\n---\n${secret}\n`,
    );
    await symlink(join(base, 'host'), join(root, 'x.other'));
    const repository = await FsSkillRepository.open({ roots: [root] });
    await repository.list();
    const flipper = await startFolderFlipper(root, 'x', 'x.other');
    const leaked: string[] = [];
    let refused = 0;
    try {
      for (let attempt = 0; attempt < 1000; attempt += 1) {
        // Each list() re-checks the file (an edit shows at once), and get() reads it again for the body.
        const listed = JSON.stringify(await repository.list());
        if (listed.includes(secret)) leaked.push(`list ${attempt}`);
        await repository.get('flip').then(
          (skill) => {
            if (JSON.stringify(skill).includes(secret)) leaked.push(`get ${attempt}`);
          },
          () => {
            refused += 1;
          },
        );
      }
    } finally {
      flipper.kill('SIGKILL');
    }
    expect(leaked).toEqual([]);
    expect(refused).toBeGreaterThan(0);
  }, 60_000);
});
