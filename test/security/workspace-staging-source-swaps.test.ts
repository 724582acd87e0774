// Someone who can write to a skill's source folder while it is staged (a command of a session that
// stages the skill by link writes through to the source) swaps a file the scan saw for something
// else before the copy: a link to a host secret, a FIFO that no one writes, or a huge file. Small
// files are copied by direct calls on the event loop (src/runtime/build-tree.ts), so each swap is
// attacked there: none may copy the host file, hang the host, or hold its event loop for long.
// Files over 128 KiB go through the thread pool (copied in the kernel, or hashed while copied),
// and are attacked the same way.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTree } from '../../src/runtime/build-tree.js';
import { hostFileEntries } from '../../src/runtime/host-file-entries.js';
import { scanTree } from '../../src/runtime/scan-tree.js';

let temporary: string;
let skill: string;

beforeEach(async () => {
  temporary = await mkdtemp(path.join(os.tmpdir(), 'skillbox-staging-swaps-'));
  skill = path.join(temporary, 'skill');
  await mkdir(skill);
  await writeFile(path.join(skill, 'SKILL.md'), '---\nname: s\ndescription: d\n---\n');
  await writeFile(path.join(skill, 'notes.txt'), 'small');
  await writeFile(path.join(temporary, 'secret.txt'), 'host secret');
});

afterEach(async () => {
  await rm(temporary, { recursive: true, force: true });
});

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The scan, then `swap`, then the copy, as staging does them; with the longest time the loop waited meanwhile. */
async function stageAfterSwap(
  swap: () => Promise<void>,
  digests = false,
): Promise<{ error?: Error; longestWaitMs: number; totalMs: number }> {
  const scan = await scanTree(skill);
  await swap();
  const tree = { kind: 'directory' as const, mode: 0o755, entries: hostFileEntries(skill, scan.entries) };
  const started = performance.now();
  let last = started;
  let longestWaitMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longestWaitMs = Math.max(longestWaitMs, now - last);
    last = now;
  }, 1);
  let error: Error | undefined;
  try {
    await buildTree(path.join(temporary, 'copy'), tree, digests);
  } catch (caught) {
    error = caught as Error;
  } finally {
    clearInterval(timer);
  }
  // The wait still running when the copy ended counts too (a call that held the loop to the end).
  longestWaitMs = Math.max(longestWaitMs, performance.now() - last);
  return { ...(error === undefined ? {} : { error }), longestWaitMs, totalMs: performance.now() - started };
}

describe('a skill source file swapped between the scan and the copy', () => {
  it('for a link to a host file: the copy fails naming the file, and the host file is not copied', async () => {
    const result = await stageAfterSwap(async () => {
      await unlink(path.join(skill, 'notes.txt'));
      await symlink(path.join(temporary, 'secret.txt'), path.join(skill, 'notes.txt'));
    });
    expect(result.error?.message).toMatch(/notes\.txt.*became a link/);
    await expect(readFile(path.join(temporary, 'copy', 'notes.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('for a FIFO no one writes: the copy fails at once naming the file, and the host does not hang', async () => {
    const result = await stageAfterSwap(async () => {
      await unlink(path.join(skill, 'notes.txt'));
      await new Promise<void>((resolve, reject) =>
        spawn('mkfifo', [path.join(skill, 'notes.txt')]).on('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`mkfifo exited ${code}`)),
        ),
      );
    });
    expect(result.error?.message).toMatch(/notes\.txt.*no longer a regular file/);
  });

  it('for a file grown large: the file is copied whole, and not by a call that holds the event loop', async () => {
    const grown = path.join(skill, 'notes.txt');
    const result = await stageAfterSwap(async () => {
      // 128 MiB, written a MiB at a time; each MiB is filled with its own number.
      const handle = await open(grown, 'w');
      try {
        for (let mebibyte = 0; mebibyte < 128; mebibyte += 1) await handle.write(Buffer.alloc(1024 * 1024, mebibyte));
      } finally {
        await handle.close();
      }
    });
    expect(result.error).toBeUndefined();
    expect(await sha256(path.join(temporary, 'copy', 'notes.txt'))).toBe(await sha256(grown));
    // One direct call held the loop for the whole copy (here 20 ms for 64 MiB, at least); on the
    // thread pool the loop keeps its turns while the copy runs.
    expect(result.longestWaitMs).toBeLessThan(Math.max(result.totalMs / 2, 5));
  });
});

describe('a large skill source file swapped between the scan and the copy', () => {
  const large = () => path.join(skill, 'data.bin');
  beforeEach(async () => {
    await writeFile(large(), Buffer.alloc(512 * 1024, 7));
  });
  const swapForLink = async () => {
    await unlink(large());
    await symlink(path.join(temporary, 'secret.txt'), large());
  };
  const swapForFifo = async () => {
    await unlink(large());
    await new Promise<void>((resolve, reject) =>
      spawn('mkfifo', [large()]).on('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`mkfifo exited ${code}`)),
      ),
    );
  };

  for (const digests of [false, true]) {
    const how = digests ? 'hashed while copied' : 'copied in the kernel';
    it(`${how}, for a link to a host file: the copy fails naming the file, and the host file is not copied`, async () => {
      const result = await stageAfterSwap(swapForLink, digests);
      expect(result.error?.message).toMatch(/data\.bin.*became a link/);
      await expect(readFile(path.join(temporary, 'copy', 'data.bin'), 'utf8')).rejects.toThrow(/ENOENT/);
    });

    it(`${how}, for a FIFO no one writes: the copy fails at once naming the file`, async () => {
      const result = await stageAfterSwap(swapForFifo, digests);
      expect(result.error?.message).toMatch(/data\.bin.*no longer a regular file/);
      expect(result.totalMs).toBeLessThan(5_000);
    });

    it(`${how}, onto a name that exists: the error names the files, not the /proc name copied through`, async () => {
      const taken = path.join(temporary, 'taken');
      await writeFile(taken, 'x');
      const single = { kind: 'file' as const, mode: 0o644, content: { hostFile: large() } };
      const error = await buildTree(taken, single, digests).then(
        () => new Error('copied onto a name that exists'),
        (caught: Error) => caught,
      );
      expect(error.message).toMatch(/EEXIST/);
      expect(error.message).toContain(taken);
      expect(error.message).not.toContain('/proc/');
    });

    it(`${how}, unswapped: the file is copied whole`, async () => {
      const result = await stageAfterSwap(async () => {}, digests);
      expect(result.error).toBeUndefined();
      expect(await sha256(path.join(temporary, 'copy', 'data.bin'))).toBe(await sha256(large()));
    });
  }
});
