import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** A file to write into a test skill folder: text, or a link when `linkTo` is set. */
export interface TestFile {
  readonly path: string;
  readonly text?: string;
  readonly executable?: boolean;
  readonly linkTo?: string;
}

/** A SKILL.md with a name and description. */
export function skillFile(name: string, description = `The ${name} skill.`, body = `Use ${name}.`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;
}

/** Writes `files` below `folder`, creating folders, setting executable bits and links as asked. */
export async function writeTestFiles(folder: string, files: readonly TestFile[]): Promise<void> {
  for (const file of files) {
    const path = join(folder, file.path);
    await mkdir(dirname(path), { recursive: true });
    if (file.linkTo !== undefined) {
      await symlink(file.linkTo, path);
      continue;
    }
    await writeFile(path, file.text ?? '');
    await chmod(path, file.executable === true ? 0o755 : 0o644);
  }
}
