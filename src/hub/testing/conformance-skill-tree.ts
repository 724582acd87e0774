import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { FetchedFile } from '../skill-source.js';

/** Every byte value four times over: not UTF-8, so a source that decodes files as text corrupts it. */
function binaryBytes(): Buffer {
  const bytes = Buffer.alloc(1024);
  for (let index = 0; index < bytes.length; index += 1) bytes[index] = index % 256;
  return bytes;
}

function text(path: string, content: string, executable = false): FetchedFile {
  return { path, bytes: Buffer.from(content, 'utf8'), executable };
}

/**
 * The repository every source serves in the conformance suite, published in the source's own format:
 * two skills under `skills/`, one with an executable script and a binary file, and a README that
 * belongs to no skill.
 */
export function conformanceSkillTree(): FetchedFile[] {
  return [
    text('README.md', '# Conformance skills\n'),
    text(
      'skills/alpha/SKILL.md',
      '---\nname: alpha\ndescription: The first conformance skill, with a script and a binary file.\n---\n\nRun `scripts/run.sh`.\n',
    ),
    text('skills/alpha/scripts/run.sh', '#!/bin/sh\necho alpha\n', true),
    { path: 'skills/alpha/assets/blob.bin', bytes: binaryBytes(), executable: false },
    text(
      'skills/beta/SKILL.md',
      '---\nname: beta\ndescription: The second conformance skill, with a document.\n---\n\nSee docs/guide.md.\n',
    ),
    text('skills/beta/docs/guide.md', '# Guide\n\nÜnïcödé stays intact.\n'),
  ];
}

/** The conformance tree's files of one skill, paths relative to the skill folder. */
export function conformanceSkillFiles(name: 'alpha' | 'beta'): FetchedFile[] {
  const prefix = `skills/${name}/`;
  return conformanceSkillTree()
    .filter((file) => file.path.startsWith(prefix))
    .map((file) => ({ ...file, path: file.path.slice(prefix.length) }));
}

/** Writes a tree into a folder, executable bits included (for git and npm fixtures). */
export async function writeTree(folder: string, tree: readonly FetchedFile[]): Promise<void> {
  for (const file of tree) {
    const target = join(folder, file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.bytes);
    await chmod(target, file.executable ? 0o755 : 0o644);
  }
}
