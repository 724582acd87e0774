import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CgroupFile } from './cgroup-file.js';

describe('CgroupFile', () => {
  const folders: string[] = [];
  const scratchFile = (text: string): string => {
    const folder = mkdtempSync(join(tmpdir(), 'skillbox-cgroup-file-'));
    folders.push(folder);
    const path = join(folder, 'control');
    writeFileSync(path, text);
    return path;
  };
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  it('reads a file longer than one read in full, and the current text on every read', () => {
    // More than one read's worth of text.
    const many = Array.from({ length: 3000 }, (_, index) => `${100000 + index}\n`).join('');
    const path = scratchFile(many);
    const file = new CgroupFile(path, 'read');
    expect(file.read()).toBe(many);
    writeFileSync(path, '42\n');
    expect(file.read()).toBe('42\n');
    file.close();
  });

  it('writes at the start of the file each time through the kept descriptor', () => {
    const path = scratchFile('');
    const writer = new CgroupFile(path, 'write');
    const reader = new CgroupFile(path, 'read');
    writer.write('256');
    writer.write('128');
    expect(reader.read()).toBe('128');
    writer.close();
    reader.close();
  });
});
