import type { WorkspaceFiles } from '../../runtime/workspace-files.js';
import { metadataFileName } from '../workspace-paths.js';
import { compileGlob, escapeGlob, MatchBudget } from './glob-pattern.js';

export interface OutputLimits {
  /** Files collected at most; later matches are left out and `limitsHit` is set. */
  maxFiles: number;
  /** Bytes read per file; a larger file is truncated (and then never saved as an artifact). */
  maxFileBytes: number;
  /** Bytes read over all files of one collection. */
  maxTotalBytes: number;
}

/** Default output limits (docs/workspaces.md): 100 files, 4 MiB each, 64 MiB in all. */
export const defaultOutputLimits: OutputLimits = {
  maxFiles: 100,
  maxFileBytes: 4 * 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
};

/** Entries a collection walks at most, so `**` over a huge tree cannot stall a tool call. */
export const maxWalkedEntries = 50_000;

/**
 * Matching steps (one character or segment compared) one collection may spend: a few hundred
 * milliseconds of event-loop time at most, however the patterns and names were chosen. Matching
 * `*.txt` against every entry of the walk budget needs a small fraction of it.
 */
export const maxMatchSteps = 20_000_000;

/** Patterns one collection takes; more are refused by the tools before the command runs. */
export const maxOutputPatterns = 64;

export interface CollectedFile {
  /** Workspace-relative path of the file itself, links resolved (`skills/x/out/a.txt` is `out/a.txt`). */
  name: string;
  sizeBytes: number;
  /** The first bytes of the file, at most the per-file and remaining total budget. */
  data: Buffer;
  truncated: boolean;
}

/** Which output cap left something out: the file count, or the bytes read (per file or in all). */
export type OutputLimitHit = 'output_files' | 'output_bytes';

export interface CollectedOutputs {
  files: CollectedFile[];
  /** Empty when nothing was left out. */
  limitsHit: OutputLimitHit[];
  warnings: string[];
}

/** A file a pattern matched, resolved but not read yet. */
export interface OutputMatch {
  /** Workspace-relative path of the file itself, links resolved. */
  name: string;
  mtimeMs: number;
  sizeBytes: number;
  /** Inode and status-change time: with size and mtime, what tells a rewritten file from an untouched one. */
  inode: number;
  ctimeMs: number;
}

/** A file's identity for "did this run write it": any change of these means it was written (or replaced). */
export function outputFingerprint(match: OutputMatch): string {
  return `${match.inode}:${match.sizeBytes}:${match.mtimeMs}:${match.ctimeMs}`;
}

export interface FindOutputsOptions {
  /** Only files modified at or after this time (ms since the epoch): what a run wrote. */
  modifiedSince?: number;
}

/**
 * Collects files matching workspace-relative patterns. Everything is resolved against the real
 * workspace root: a match (or a pattern's base folder) whose real path is outside the workspace is
 * never read, whatever links the process planted. Links to folders are not descended into during
 * `**` walks (no loops, no duplicates); the skill copies' `out` link works because a pattern's base
 * is resolved before the walk.
 */
export async function collectOutputs(
  files: WorkspaceFiles,
  patterns: readonly string[],
  limits: OutputLimits = defaultOutputLimits,
): Promise<CollectedOutputs> {
  const found = await findOutputs(files, patterns);
  const read = await readOutputs(files, found.matches, limits);
  return { ...read, warnings: [...found.warnings, ...read.warnings] };
}

/**
 * The files the patterns match, in order (each pattern's matches sorted by name, duplicates
 * dropped), without reading any: one walk that also yields each file's modification time, so
 * "what did this run write" needs no second pass.
 */
export async function findOutputs(
  files: WorkspaceFiles,
  patterns: readonly string[],
  options: FindOutputsOptions = {},
): Promise<{ matches: OutputMatch[]; warnings: string[] }> {
  const warnings: string[] = [];
  const found = new Map<string, OutputMatch>();
  let walked = 0;
  const budget = new MatchBudget(maxMatchSteps);
  for (const pattern of patterns) {
    const glob = compileGlob(pattern);
    const [base] = await files.resolve([glob.base]);
    if (base === undefined) continue;
    if (!base.inside) {
      warnings.push(`output pattern "${pattern}" leads out of the workspace; nothing collected from it`);
      continue;
    }
    // Candidates are resolved together (one call, however far the workspace is), in walk order.
    const candidates: string[] = [];
    if (base.entry.kind === 'file') {
      if (!glob.hasWildcards) candidates.push(glob.base);
    } else if (base.entry.kind === 'directory') {
      // A plain folder path collects the folder's files, as `folder/**` would.
      const matcher = glob.hasWildcards ? glob : compileGlob(`${escapeGlob(glob.base)}/**`);
      const maxDepth = glob.hasWildcards ? glob.maxDepth : Infinity;
      const listing = await files.list(base.path, { maxDepth, maxEntries: maxWalkedEntries - walked + 1 });
      for (const entry of listing.entries) {
        walked += 1;
        if (walked > maxWalkedEntries || budget.exhausted) break;
        if (entry.kind !== 'file' && entry.kind !== 'link') continue;
        const logical = glob.base === '' ? entry.path : `${glob.base}/${entry.path}`;
        if (matcher.matches(logical, budget)) candidates.push(logical);
      }
    }
    const resolved = await files.resolve(candidates);
    const matches: OutputMatch[] = [];
    for (const [index, logical] of candidates.entries()) {
      const real = resolved[index];
      if (real === undefined || !real.inside) {
        warnings.push(`skipped "${logical}": a link that leads out of the workspace`);
        continue;
      }
      const { entry } = real;
      if (entry.kind !== 'file') continue;
      if (options.modifiedSince !== undefined && entry.mtimeMs < options.modifiedSince) continue;
      if (!isInternal(real.path))
        matches.push({
          name: real.path,
          mtimeMs: entry.mtimeMs,
          sizeBytes: entry.sizeBytes,
          inode: entry.inode,
          ctimeMs: entry.ctimeMs,
        });
    }
    matches.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const match of matches) if (!found.has(match.name)) found.set(match.name, match);
  }
  if (walked > maxWalkedEntries)
    warnings.push(`output patterns walked more than ${maxWalkedEntries} entries; the rest was not searched`);
  if (budget.exhausted)
    warnings.push(
      'output patterns took too much matching work (many wildcards against many or long names); the rest was not searched: use fewer wildcards or a narrower folder',
    );
  return { matches: [...found.values()], warnings };
}

/**
 * Reads the matched files in order, within the limits. Each file is opened without following its
 * last name and read only when what was opened lies inside `root` (anchored-folder.ts): between the
 * search and the read, a folder on the path may have become a link to the host.
 */
export async function readOutputs(
  files: WorkspaceFiles,
  matches: readonly OutputMatch[],
  limits: OutputLimits = defaultOutputLimits,
): Promise<CollectedOutputs> {
  const warnings: string[] = [];
  const collected: CollectedFile[] = [];
  let total = 0;
  const limitsHit = new Set<OutputLimitHit>();
  for (const { name } of matches) {
    if (collected.length >= limits.maxFiles || total >= limits.maxTotalBytes) {
      limitsHit.add(collected.length >= limits.maxFiles ? 'output_files' : 'output_bytes');
      warnings.push(
        `output files limited to ${limits.maxFiles} files and ${limits.maxTotalBytes} bytes; ${matches.length - collected.length} more matched`,
      );
      break;
    }
    const budget = Math.min(limits.maxFileBytes, limits.maxTotalBytes - total);
    let head: { data: Buffer; sizeBytes: number };
    try {
      head = await files.read(name, budget);
    } catch (error) {
      warnings.push(`skipped "${name}": ${(error as Error).message}`);
      continue;
    }
    const { data, sizeBytes } = head;
    const truncated = sizeBytes > data.length;
    if (truncated) limitsHit.add('output_bytes');
    total += data.length;
    collected.push({ name, sizeBytes, data, truncated });
  }
  return { files: collected, limitsHit: [...limitsHit], warnings };
}

/** Workspace bookkeeping is never an output file. */
function isInternal(name: string): boolean {
  return name === metadataFileName || /^\.metadata\..*\.tmp$/.test(name) || /^skills\/\.(staging|retired)-/.test(name);
}
