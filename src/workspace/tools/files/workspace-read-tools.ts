import { z } from 'zod';
import { SkillToolError } from '../../../tools/errors.js';
import type { ToolDefinition } from '../../../tools/types.js';
import { WorkspacePathError } from '../../errors.js';
import { compileGlob, MatchBudget } from '../../outputs/glob-pattern.js';
import type { ResolvedExecutionOptions } from '../execution-options.js';
import { fileToolPath } from './file-tool-path.js';
import { fileToolLimits, sessionWorkspace } from './file-tool-support.js';
import { numberedLines } from './numbered-lines.js';
import { readWorkspaceTextFile } from './read-workspace-file.js';

const listInput = z.object({
  path: z
    .string()
    .optional()
    .describe('Folder to list, relative to the workspace root (work, out, skills/<name>, ...). Default: the root.'),
  depth: z
    .number()
    .int()
    .min(1)
    .max(fileToolLimits.maxListDepth)
    .optional()
    .describe('Levels below the folder to list (default 2).'),
});
type ListInput = z.infer<typeof listInput>;

interface ListedFile {
  path: string;
  kind: 'file' | 'directory' | 'link' | 'other';
  size_bytes?: number;
}

/** `workspace_list`: what the workspace holds, with sizes, bounded in depth and count. */
export function createWorkspaceListTool(
  options: ResolvedExecutionOptions,
): ToolDefinition<ListInput, { path: string; entries: ListedFile[]; truncated: boolean }> {
  return {
    name: 'workspace_list',
    description:
      'List files and folders in the session workspace (skills/<name>/ holds staged skills, work/ is scratch, work/inputs/ holds inputs, out/ is for results), with sizes in bytes.',
    inputSchema: listInput,
    writesState: false,
    async execute(input, context) {
      const workspace = await sessionWorkspace(options, context);
      const relative = await fileToolPath('workspace_list', 'path', input.path ?? '', workspace);
      return workspace.fileWork(
        async () => {
          const [resolved] = await workspace.files.resolve([relative]);
          if (resolved === undefined) throw new SkillToolError(`workspace_list: ${relative} does not exist`);
          if (!resolved.inside) throw new SkillToolError(`workspace_list: ${relative} leads out of the workspace`);
          if (resolved.entry.kind !== 'directory')
            throw new SkillToolError(`workspace_list: ${relative} is not a folder; use workspace_read for a file`);
          const listed = await workspace.files.list(resolved.path, {
            maxDepth: input.depth ?? 2,
            maxEntries: fileToolLimits.maxListEntries,
          });
          const prefix = resolved.path === '' ? '' : `${resolved.path}/`;
          const entries: ListedFile[] = await Promise.all(
            listed.entries.map(async (entry): Promise<ListedFile> => {
              const path = `${prefix}${entry.path}`;
              if (entry.kind !== 'file') return { path, kind: entry.kind };
              const info = await workspace.files.inspect(path);
              return info === undefined
                ? { path, kind: entry.kind }
                : { path, kind: entry.kind, size_bytes: info.sizeBytes };
            }),
          );
          return { path: resolved.path, entries, truncated: listed.truncated };
        },
        { writes: false },
      );
    },
  };
}

const readInput = z.object({
  path: z
    .string()
    .min(1)
    .describe('File to read, relative to the workspace root (e.g. work/notes.md, out/report.csv).'),
  offset: z.number().int().min(1).optional().describe('First line to show (1-based). Default 1.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(fileToolLimits.maxReadLines)
    .optional()
    .describe(`Lines to show (default ${fileToolLimits.defaultReadLines}).`),
});
type ReadInput = z.infer<typeof readInput>;

interface ReadResult {
  path: string;
  /** The lines, each prefixed by its number and a tab. */
  content: string;
  first_line: number;
  last_line: number;
  total_lines: number;
  size_bytes: number;
  warnings?: string[];
}

/** `workspace_read`: a text file of the workspace by line range, numbered as `cat -n` numbers it. */
export function createWorkspaceReadTool(options: ResolvedExecutionOptions): ToolDefinition<ReadInput, ReadResult> {
  return {
    name: 'workspace_read',
    description:
      'Read a text file in the session workspace. Lines come numbered ("<number><tab><line>"); use offset and limit for long files. Binary files are refused with their type.',
    inputSchema: readInput,
    writesState: false,
    async execute(input, context) {
      const workspace = await sessionWorkspace(options, context);
      const relative = await fileToolPath('workspace_read', 'path', input.path, workspace);
      return workspace.fileWork(
        async () => {
          const file = await readWorkspaceTextFile('workspace_read', workspace, relative, fileToolLimits.maxReadBytes);
          const lines = numberedLines(file.text, input.offset ?? 1, input.limit ?? fileToolLimits.defaultReadLines);
          const warnings: string[] = [];
          if (file.cut)
            warnings.push(
              `the file is ${file.sizeBytes} bytes; only its first ${fileToolLimits.maxReadBytes} bytes were read`,
            );
          if (lines.lastLine < lines.totalLines)
            warnings.push(
              `lines ${lines.lastLine + 1}-${lines.totalLines} not shown: read again with offset ${lines.lastLine + 1}`,
            );
          if (lines.firstLine > lines.totalLines)
            warnings.push(`the file has ${lines.totalLines} lines; offset is past its end`);
          return {
            path: file.path,
            content: lines.text,
            first_line: lines.firstLine,
            last_line: Math.max(lines.lastLine, 0),
            total_lines: lines.totalLines,
            size_bytes: file.sizeBytes,
            ...(warnings.length > 0 ? { warnings } : {}),
          };
        },
        { writes: false },
      );
    },
  };
}

const globInput = z.object({
  pattern: z
    .string()
    .min(1)
    .describe('Glob, e.g. "**/*.xml", "out/*.csv" ("**" spans folders; hidden files match too).'),
  path: z.string().optional().describe('Folder the pattern is relative to. Default: the workspace root.'),
});
type GlobInput = z.infer<typeof globInput>;

/** `workspace_glob`: paths matching a glob, with the project's own bounded matcher. */
export function createWorkspaceGlobTool(
  options: ResolvedExecutionOptions,
): ToolDefinition<GlobInput, { matches: string[]; truncated: boolean }> {
  return {
    name: 'workspace_glob',
    description:
      'Find files in the session workspace whose path matches a glob pattern; returns workspace-relative paths.',
    inputSchema: globInput,
    writesState: false,
    async execute(input, context) {
      const workspace = await sessionWorkspace(options, context);
      const base = await fileToolPath('workspace_glob', 'path', input.path ?? '', workspace);
      let glob: ReturnType<typeof compileGlob>;
      try {
        glob = compileGlob(input.pattern);
      } catch (error) {
        if (error instanceof WorkspacePathError) throw new SkillToolError(`workspace_glob: pattern ${error.message}`);
        throw error;
      }
      return workspace.fileWork(
        async () => {
          const start = base === '' ? glob.base : glob.base === '' ? base : `${base}/${glob.base}`;
          const files = await walkFiles(workspace, start, Math.min(glob.maxDepth + 1, 64));
          if (files === undefined) return { matches: [], truncated: false };
          const budget = new MatchBudget(1_000_000);
          const strip = base === '' ? 0 : base.length + 1;
          const matches: string[] = [];
          for (const path of files.paths) {
            if (glob.matches(path.slice(strip), budget)) matches.push(path);
            if (matches.length >= fileToolLimits.maxGlobMatches || budget.exhausted) break;
          }
          return {
            matches,
            truncated: files.truncated || budget.exhausted || matches.length >= fileToolLimits.maxGlobMatches,
          };
        },
        { writes: false },
      );
    },
  };
}

/** The files (not folders, not links) below `folder`, workspace-relative, depth first, bounded. */
export async function walkFiles(
  workspace: Awaited<ReturnType<typeof sessionWorkspace>>,
  folder: string,
  maxDepth: number,
): Promise<{ paths: string[]; truncated: boolean } | undefined> {
  const [resolved] = await workspace.files.resolve([folder]);
  if (resolved === undefined || !resolved.inside) return undefined;
  if (resolved.entry.kind === 'file') return { paths: [resolved.path], truncated: false };
  if (resolved.entry.kind !== 'directory') return undefined;
  const listed = await workspace.files.list(resolved.path, { maxDepth, maxEntries: fileToolLimits.maxWalkEntries });
  const prefix = resolved.path === '' ? '' : `${resolved.path}/`;
  return {
    paths: listed.entries.filter((entry) => entry.kind === 'file').map((entry) => `${prefix}${entry.path}`),
    truncated: listed.truncated,
  };
}
