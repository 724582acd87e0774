import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Every path below `folder` with its content (`-> target` for a link, '' for a folder), sorted: what
 * a snapshot, a restore or an attack may change, compared whole. With `modes`, each entry's
 * permission bits come first (a folder's alone).
 */
export async function folderTree(
  folder: string,
  options: { modes?: boolean } = {},
  prefix = '',
): Promise<Record<string, string>> {
  const tree: Record<string, string> = {};
  for (const name of (await readdir(folder)).sort()) {
    const path = join(folder, name);
    const stats = await lstat(path);
    const key = `${prefix}${name}`;
    const mode = (stats.mode & 0o777).toString(8);
    if (stats.isSymbolicLink()) tree[key] = `-> ${await readlink(path)}`;
    else if (stats.isDirectory())
      Object.assign(
        tree,
        { [`${key}/`]: options.modes === true ? mode : '' },
        await folderTree(path, options, `${key}/`),
      );
    else tree[key] = `${options.modes === true ? `${mode} ` : ''}${await readFile(path, 'utf8')}`;
  }
  return tree;
}
