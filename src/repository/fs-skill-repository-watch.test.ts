import { rm, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { FsSkillRepository } from './fs-skill-repository.js';
import type { SkillChangeEvent } from './fs-skill-watch.js';
import { createSkillTree, type SkillTree, skillMarkdown } from './testing/skill-tree.js';

let root: SkillTree | undefined;
afterEach(async () => {
  await root?.remove();
});

/** Resolves with the next event; fails the test instead of hanging when none comes. */
function nextEvent(
  events: SkillChangeEvent[],
  waiters: ((event: SkillChangeEvent) => void)[],
): Promise<SkillChangeEvent> {
  const queued = events.shift();
  if (queued) return Promise.resolve(queued);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no change event within 5 s')), 5_000);
    waiters.push((event) => {
      clearTimeout(timer);
      resolve(event);
    });
  });
}

describe('FsSkillRepository.watch', () => {
  it('emits one debounced event per burst of changes: added, changed, removed', async () => {
    root = await createSkillTree({
      'keep/SKILL.md': skillMarkdown('keep', 'Stays.'),
      'drop/SKILL.md': skillMarkdown('drop', 'Goes.'),
    });
    const repository = await FsSkillRepository.open({ roots: [root.dir] });
    const events: SkillChangeEvent[] = [];
    const waiters: ((event: SkillChangeEvent) => void)[] = [];
    const watcher = repository.watch(
      (event) => {
        const waiter = waiters.shift();
        if (waiter) waiter(event);
        else events.push(event);
      },
      // Long enough that a loaded machine still finishes the burst of writes inside one quiet window.
      { debounceMs: 400 },
    );
    try {
      // Several writes in one burst: added twice over and edited, so only the debounce makes this one event.
      await root.write({
        'new/one/SKILL.md': skillMarkdown('new-one', 'Added.'),
        'new/two/SKILL.md': skillMarkdown('new-two', 'Added.'),
      });
      await writeFile(root.path('keep/SKILL.md'), skillMarkdown('keep', 'Stays, edited.'));
      await rm(root.path('drop'), { recursive: true });
      expect(await nextEvent(events, waiters)).toEqual({
        added: ['new-one', 'new-two'],
        removed: ['drop'],
        changed: ['keep'],
      });
      expect((await repository.list()).map((summary) => summary.description)).toEqual([
        'Stays, edited.',
        'Added.',
        'Added.',
      ]);

      // Edits to a file that is not a SKILL.md do not change the catalog, so no event.
      await writeFile(root.path('keep/notes.md'), 'notes');
      await root.write({ 'late/SKILL.md': skillMarkdown('late', 'After the quiet edit.') });
      expect(await nextEvent(events, waiters)).toEqual({ added: ['late'], removed: [], changed: [] });
    } finally {
      watcher.close();
    }
  });

  it('with `files`, reports edits to files other than SKILL.md by skill', async () => {
    root = await createSkillTree({
      'tools/SKILL.md': skillMarkdown('tools', 'Has scripts.'),
      'tools/scripts/run.sh': 'echo one\n',
      'tools/inner/SKILL.md': skillMarkdown('inner', 'A skill inside a skill folder.'),
      'other/SKILL.md': skillMarkdown('other', 'Untouched.'),
    });
    const repository = await FsSkillRepository.open({ roots: [root.dir], nested: true });
    expect((await repository.list()).map((summary) => summary.name)).toEqual(['inner', 'other', 'tools']);
    const events: SkillChangeEvent[] = [];
    const waiters: ((event: SkillChangeEvent) => void)[] = [];
    const watcher = repository.watch(
      (event) => {
        const waiter = waiters.shift();
        if (waiter) waiter(event);
        else events.push(event);
      },
      { debounceMs: 400, files: true },
    );
    try {
      await writeFile(root.path('tools/scripts/run.sh'), 'echo two\n');
      await root.write({ 'tools/scripts/new.py': 'print(1)\n' });
      expect(await nextEvent(events, waiters)).toEqual({ added: [], removed: [], changed: [], files: ['tools'] });

      // A file of the nested skill belongs to it, not to the folder around it.
      await root.write({ 'tools/inner/notes.md': 'notes' });
      expect(await nextEvent(events, waiters)).toEqual({ added: [], removed: [], changed: [], files: ['inner'] });

      // An edited SKILL.md is a catalog change, listed once under `changed`.
      await writeFile(root.path('other/SKILL.md'), skillMarkdown('other', 'Edited.'));
      await rm(root.path('tools/scripts/new.py'));
      expect(await nextEvent(events, waiters)).toEqual({
        added: [],
        removed: [],
        changed: ['other'],
        files: ['tools'],
      });
    } finally {
      watcher.close();
    }
  });

  it('stays silent after close', async () => {
    root = await createSkillTree({ 'a/SKILL.md': skillMarkdown('a', 'A.') });
    const repository = await FsSkillRepository.open({ roots: [root.dir] });
    const events: SkillChangeEvent[] = [];
    const watcher = repository.watch((event) => events.push(event), { debounceMs: 10 });
    watcher.close();
    await root.write({ 'b/SKILL.md': skillMarkdown('b', 'B.') });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(events).toEqual([]);
  });

  it('rejects a bad debounce', async () => {
    root = await createSkillTree({});
    const repository = await FsSkillRepository.open({ roots: [root.dir] });
    expect(() => repository.watch(() => {}, { debounceMs: -1 })).toThrow(
      'FsSkillRepository.watch: option "debounceMs" must be a non-negative number of milliseconds; got -1',
    );
  });
});
