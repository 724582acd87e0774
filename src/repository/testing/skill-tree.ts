import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A symbolic link to create, pointing at `target` (relative to the link's folder, or absolute). */
export interface LinkEntry {
  link: string;
}

export type TreeEntry = string | Uint8Array | LinkEntry | { folder: true };

export interface SkillTree {
  /** The temporary folder holding the tree. */
  dir: string;
  path(relative: string): string;
  write(entries: Record<string, TreeEntry>): Promise<void>;
  remove(): Promise<void>;
}

export function skillMarkdown(name: string, description: string, body = `# ${name}\n\nInstructions.\n`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

async function writeEntries(dir: string, entries: Record<string, TreeEntry>): Promise<void> {
  for (const [relative, entry] of Object.entries(entries)) {
    const path = join(dir, relative);
    await mkdir(dirname(path), { recursive: true });
    if (typeof entry === 'string' || entry instanceof Uint8Array) await writeFile(path, entry);
    else if ('link' in entry) await symlink(entry.link, path);
    else await mkdir(path, { recursive: true });
  }
}

/** A temporary folder with the given files, folders and links; `remove()` deletes it. */
export async function createSkillTree(entries: Record<string, TreeEntry> = {}): Promise<SkillTree> {
  const dir = await mkdtemp(join(tmpdir(), 'skillbox-repository-'));
  await writeEntries(dir, entries);
  return {
    dir,
    path: (relative) => join(dir, relative),
    write: (more) => writeEntries(dir, more),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
