import path from 'node:path';
import type { FolderEntry } from './scan-tree.js';
import type { TreeEntry } from './workspace-files.js';

/**
 * Scanned host entries as a tree to place in a workspace. Folders and files become the session's
 * (owner-writable, since the session may change its copy); file contents stay host paths that the
 * runtime's file access reads, confined to `within` when given; links are placed as they are.
 * Staging a skill, staging an input and copying inside a workspace all place host trees this way.
 */
export function hostFileEntries(source: string, entries: readonly FolderEntry[], within?: string): TreeEntry[] {
  return entries.map((entry) =>
    entry.kind === 'directory'
      ? { kind: 'directory', path: entry.path, mode: entry.mode | 0o700 }
      : entry.kind === 'link'
        ? entry
        : {
            kind: 'file',
            path: entry.path,
            mode: entry.mode | 0o600,
            content: {
              hostFile: path.join(source, ...entry.path.split('/')),
              size: entry.size,
              ...(within === undefined ? {} : { within }),
            },
          },
  );
}
