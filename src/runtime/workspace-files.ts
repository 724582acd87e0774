/**
 * The file side of the runtime contract: how the host places files in a workspace and reads them
 * back, without assuming it can open the workspace folder itself. A runtime whose commands run
 * elsewhere (a container, a remote worker) keeps the workspace where its commands run and answers
 * these calls there; the host runtimes (`local`, `sandbox`) answer them on the host folder
 * (host-workspace-files.ts). docs/workspaces.md ("Runtimes and workspace files") is the guide.
 *
 * Every path is workspace-relative, `/`-separated, without `.`/`..` segments; `''` is the root.
 * Whatever the implementation, the guarantees are the same: nothing is read or written outside the
 * workspace, whatever links a command planted; a destination is replaced, never written through.
 */

/** The bytes of a file to place: given, or read from a host file by the host (never by the command). */
export type FileContent =
  | { data: Uint8Array }
  /**
   * A file on the HOST (a skill's source, an input the caller allowed), never a workspace path: the
   * command never opens it. The host (or a runtime that sees host paths, to copy without reading it
   * through memory) opens it; with `within`, only when what was opened lies inside that real host
   * folder, so a link swapped into the source cannot make the host read elsewhere. A runtime whose
   * workspaces live elsewhere reads it on the host that way and sends the bytes.
   */
  | {
      hostFile: string;
      within?: string;
      /**
       * The file's size when the caller has just seen it (a scan): a hint, not a limit. A small
       * file is then copied without a trip through the thread pool (call-slices.ts says why).
       */
      size?: number;
    };

/** One entry of a tree to place; `path` is relative to the tree's root. */
export type TreeEntry =
  | { kind: 'directory'; path: string; mode: number }
  | { kind: 'file'; path: string; mode: number; content: FileContent }
  /** `target` is written as is: relative to the link's folder, or absolute. */
  | { kind: 'link'; path: string; target: string };

/** What `put` places at its destination: a file, a link, or a folder with entries (parents first). */
export type PlacedTree =
  | { kind: 'file'; mode: number; content: FileContent }
  | { kind: 'link'; target: string }
  | { kind: 'directory'; mode: number; entries: readonly TreeEntry[] };

/** How `WorkspaceFiles.put` places a tree: with digests, and whether a folder at the path may be replaced. */
export interface PutOptions {
  /** Return the sha256 of every file placed (computed while writing, so each byte is read once). */
  digests?: boolean;
  /**
   * Fail (leaving it as it is) when a folder stands at the path instead of replacing it: for a
   * file that only the host writes (metadata.json), a folder there is a command's doing, and a
   * failed write is reported rather than the folder silently removed.
   */
  keepFolder?: boolean;
}

/** What `WorkspaceFiles.put` placed: its inode and, when asked, each file's sha256. */
export interface PutResult {
  /** Inode of what was placed: a later `inspect` showing another one means it was replaced since. */
  inode: number;
  /** sha256 (hex) per file path of the tree (`''` for a single file), when `digests` was asked. */
  digests?: Record<string, string>;
}

/** What is at a path, not following a link there. */
export interface EntryInfo {
  kind: 'file' | 'directory' | 'link' | 'other';
  /** Permission bits. */
  mode: number;
  inode: number;
  sizeBytes: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** A path followed through its links: where it really is in the workspace, or that it leaves it. */
export type ResolvedPath =
  | { inside: true; path: string; entry: EntryInfo }
  /** It exists (as a name) but leads out of the workspace, or is a link that dangles. */
  | { inside: false };

/** One entry below a listed folder; `path` is relative to that folder. */
export interface ListedEntry {
  path: string;
  kind: 'file' | 'directory' | 'link' | 'other';
}

/** How far `WorkspaceFiles.list` goes: depth and number of entries. */
export interface ListOptions {
  /** Levels below the folder listed at most (1: its own entries). */
  maxDepth: number;
  /** Entries returned at most; `truncated` says when more were there. */
  maxEntries: number;
}

/** How much a workspace may hold (`Infinity` for no limit). */
export interface WorkspaceSizeLimits {
  /** Bytes of disk in use (allocated blocks, so a sparse file counts what it really takes). */
  maxBytes: number;
  /** Files, folders and links. */
  maxFiles: number;
}

/** What a workspace holds, as `WorkspaceFiles.measure` counted it. */
export interface WorkspaceUsage {
  bytes: number;
  files: number;
  /** The first limit found exceeded; counting stops there, so the figures are then lower bounds. */
  exceeded?: 'disk' | 'files';
  /**
   * A folder the walk could not read (workspace-relative, with the error code), even after giving
   * its owner's permissions back: what it holds is unknown, so the usage counts as over the disk limit.
   */
  unreadable?: string;
}

/**
 * File access to one workspace. Calls are made only while no command of the workspace runs (the
 * workspace takes turns), except `measure`, which watches a running command.
 */
export interface WorkspaceFiles {
  /**
   * Makes each path (parents first) a real folder: anything standing in its place (a file, a link
   * to the host) is moved out of the workspace and removed. Cheap when all of them already are.
   */
  ensureFolders(paths: readonly string[]): Promise<void>;
  /**
   * Creates the folder and missing parents. A part may be a link only when it leads to a folder
   * inside the workspace; anything else is refused (`WorkspacePathError`), so nothing is created
   * through a planted link. With `exclusive`, returns false (creating nothing) when the last part exists.
   */
  makeFolder(path: string, options?: { exclusive?: boolean }): Promise<boolean>;
  /** What is at `path` itself (a link is reported as a link); undefined when nothing is, or a parent is unusable. */
  inspect(path: string): Promise<EntryInfo | undefined>;
  /** Each path followed through its links; undefined for a path at which nothing exists. */
  resolve(paths: readonly string[]): Promise<Array<ResolvedPath | undefined>>;
  /**
   * The entries below a folder (resolved first: see `resolve`), depth first, each folder's entries
   * sorted by name; links are listed, never followed.
   */
  list(folder: string, options: ListOptions): Promise<{ entries: ListedEntry[]; truncated: boolean }>;
  /**
   * The first `maxBytes` of a regular file and its full size. The last part is never followed
   * and what was opened must lie inside the workspace; a FIFO cannot block the read.
   */
  read(path: string, maxBytes: number): Promise<{ data: Buffer; sizeBytes: number }>;
  /**
   * Places `tree` at `path`: built where no command can reach it, then moved into the
   * destination's parent (created when missing, links leading out refused) in one step. Whatever
   * was at `path` is replaced, a link itself and not what it points to; a failure leaves it as it was.
   */
  put(path: string, tree: PlacedTree, options?: PutOptions): Promise<PutResult>;
  /**
   * Copies a file or folder of the workspace to `to` (replacing as `put` does); links inside a
   * copied folder are kept when they stay inside it, others are left out.
   */
  copy(from: string, to: string): Promise<void>;
  /** Removes a file or tree; `''` removes the whole workspace. Nothing there is not an error. */
  remove(path: string): Promise<void>;
  /**
   * Removes the folder at `path` only when it is an empty folder (not a link, not a file); true when
   * it did. Optional: where it costs a round trip (a remote worker, a container) a runtime leaves it
   * out, and empty run folders then stay.
   */
  removeEmptyFolder?(path: string): Promise<boolean>;
  /** Counts what the workspace holds (each inode once, links not followed), stopping past a limit. */
  measure(limits: WorkspaceSizeLimits): Promise<WorkspaceUsage>;
}
