import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CallSlices } from './call-slices.js';
import { scanTree } from './scan-tree.js';

let temporary: string;

beforeEach(async () => {
  temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-scan-tree-'));
});

afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

describe('scanTree', () => {
  it('lists parents before children and names in sorted order, keeps links inside, skips the rest with a warning', async () => {
    const folder = path.join(temporary, 'skill');
    await mkdir(path.join(folder, 'b', 'deep'), { recursive: true });
    await mkdir(path.join(folder, 'a'));
    await writeFile(path.join(folder, 'z.txt'), 'zz');
    await writeFile(path.join(folder, 'a', 'one.txt'), '1');
    await writeFile(path.join(folder, 'b', 'deep', 'two.py'), 'print(2)\n', { mode: 0o755 });
    await writeFile(path.join(folder, 'skip-me'), 'x');
    await writeFile(path.join(temporary, 'outside.txt'), 'host');
    await symlink('a/one.txt', path.join(folder, 'c-inside'));
    await symlink('../outside.txt', path.join(folder, 'd-outside'));
    await symlink('missing', path.join(folder, 'e-dangling'));
    await chmod(path.join(folder, 'b'), 0o750);

    const scan = await scanTree(folder, (name) =>
      name === 'skip-me' ? { skip: true, warning: 'skipped skip-me' } : undefined,
    );

    expect(scan.entries.map((entry) => [entry.kind, entry.path])).toEqual([
      ['directory', 'a'],
      ['file', 'a/one.txt'],
      ['directory', 'b'],
      ['directory', 'b/deep'],
      ['file', 'b/deep/two.py'],
      ['link', 'c-inside'],
      ['file', 'z.txt'],
    ]);
    expect(scan.entries.find((entry) => entry.path === 'b')).toMatchObject({ mode: 0o750 });
    expect(scan.entries.find((entry) => entry.path === 'b/deep/two.py')).toMatchObject({ mode: 0o755, size: 9 });
    expect(scan.entries.find((entry) => entry.path === 'c-inside')).toEqual({
      kind: 'link',
      path: 'c-inside',
      target: 'a/one.txt',
    });
    expect(scan.warnings).toEqual([
      'skipped link "d-outside": it leads out of the skill folder',
      'skipped link "e-dangling": it dangles',
      'skipped skip-me',
    ]);
  });

  it('lets other work on the event loop run between its slices of calls', async () => {
    const folder = path.join(temporary, 'large');
    for (let group = 0; group < 5; group += 1) {
      await mkdir(path.join(folder, `group-${group}`), { recursive: true });
      await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          writeFile(path.join(folder, `group-${group}`, `file-${index}.txt`), String(index)),
        ),
      );
    }
    let turns = 0;
    let scanning = true;
    const tick = (): void => {
      if (!scanning) return;
      turns += 1;
      setImmediate(tick);
    };
    setImmediate(tick);
    // Slices of no length: the scan yields before every call, so the loop gets a turn per entry.
    const scan = await scanTree(folder, undefined, new CallSlices(0));
    scanning = false;
    expect(scan.entries).toHaveLength(5 * 101);
    expect(turns).toBeGreaterThanOrEqual(5 * 101);
  });

  it('names the folder when it cannot be read', async () => {
    await expect(scanTree(path.join(temporary, 'missing'))).rejects.toThrow(/missing/);
  });
});
