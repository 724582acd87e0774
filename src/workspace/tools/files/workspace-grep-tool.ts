import { z } from 'zod';
import { SkillToolError } from '../../../tools/errors.js';
import type { ToolDefinition } from '../../../tools/types.js';
import { WorkspacePathError } from '../../errors.js';
import { compileGlob, type GlobPattern, MatchBudget } from '../../outputs/glob-pattern.js';
import { looksLikeText, sniffBytes } from '../../outputs/mime-type.js';
import type { ResolvedExecutionOptions } from '../execution-options.js';
import { fileToolPath } from './file-tool-path.js';
import { fileToolLimits, sessionWorkspace } from './file-tool-support.js';
import { SearchTimeoutError, searchInWorker, type TextMatch } from './search-in-worker.js';
import { walkFiles } from './workspace-read-tools.js';

const grepInput = z.object({
  pattern: z.string().min(1).max(1000).describe('Regular expression (JavaScript syntax) to search for, line by line.'),
  path: z.string().optional().describe('File or folder to search, relative to the workspace root. Default: the root.'),
  glob: z.string().optional().describe('Only files whose path below `path` matches this glob, e.g. "**/*.xml".'),
  ignore_case: z.boolean().optional().describe('Match without regard to case (default false).'),
  fixed_strings: z
    .boolean()
    .optional()
    .describe('Take pattern as plain text, not a regular expression (default false).'),
  max_matches: z
    .number()
    .int()
    .min(1)
    .max(fileToolLimits.maxGrepMatches)
    .optional()
    .describe('Matching lines returned at most (default 100).'),
});
type GrepInput = z.infer<typeof grepInput>;

interface GrepResult {
  matches: TextMatch[];
  files_searched: number;
  truncated: boolean;
  warnings?: string[];
}

/** `workspace_grep`: lines of the workspace's text files that match a pattern, bounded in files, bytes and time. */
export function createWorkspaceGrepTool(options: ResolvedExecutionOptions): ToolDefinition<GrepInput, GrepResult> {
  return {
    name: 'workspace_grep',
    description:
      'Search the text files of the session workspace for lines matching a regular expression; returns path, line number and line. Binary files and links are skipped.',
    inputSchema: grepInput,
    writesState: false,
    async execute(input, context) {
      const source =
        input.fixed_strings === true ? input.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : input.pattern;
      const flags = input.ignore_case === true ? 'iu' : 'u';
      try {
        new RegExp(source, flags);
      } catch (error) {
        throw new SkillToolError(
          `workspace_grep: pattern is not a valid regular expression (${(error as Error).message}); set fixed_strings to search for plain text`,
        );
      }
      const filter = input.glob === undefined ? undefined : compiled(input.glob);
      const workspace = await sessionWorkspace(options, context);
      const base = await fileToolPath('workspace_grep', 'path', input.path ?? '', workspace);
      const { files, warnings, truncated } = await workspace.fileWork(
        async () => {
          const walked = await walkFiles(workspace, base, 64);
          if (walked === undefined)
            throw new SkillToolError(
              `workspace_grep: ${base === '' ? 'the workspace' : base} does not exist or leads out of the workspace`,
            );
          const strip = base === '' || walked.paths[0] === base ? 0 : base.length + 1;
          const budget = new MatchBudget(1_000_000);
          const texts: Array<{ path: string; text: string }> = [];
          const notes: string[] = [];
          let bytes = 0;
          let cut = walked.truncated;
          for (const path of walked.paths) {
            if (filter !== undefined && !filter.matches(path.slice(strip), budget)) continue;
            if (texts.length >= fileToolLimits.maxGrepFiles || bytes >= fileToolLimits.maxGrepTotalBytes) {
              cut = true;
              break;
            }
            const { data, sizeBytes } = await workspace.files
              .read(path, fileToolLimits.maxGrepFileBytes)
              .catch(() => ({ data: Buffer.alloc(0), sizeBytes: -1 }));
            if (sizeBytes < 0 || !looksLikeText(data.subarray(0, sniffBytes))) continue;
            if (sizeBytes > data.length) notes.push(`${path}: only its first ${data.length} bytes were searched`);
            bytes += data.length;
            texts.push({ path, text: data.toString('utf8') });
          }
          return { files: texts, warnings: notes, truncated: cut };
        },
        { writes: false },
      );
      try {
        const found = await searchInWorker(
          files,
          { source, flags },
          input.max_matches ?? 100,
          fileToolLimits.grepTimeoutMs,
        );
        return {
          matches: found.matches,
          files_searched: files.length,
          truncated: truncated || found.truncated,
          ...(warnings.length > 0 ? { warnings: warnings.slice(0, 10) } : {}),
        };
      } catch (error) {
        if (error instanceof SearchTimeoutError)
          throw new SkillToolError(
            `workspace_grep: ${error.message} (the pattern backtracks too much); simplify it or set fixed_strings`,
          );
        throw error;
      }
    },
  };
}

function compiled(glob: string): GlobPattern {
  try {
    return compileGlob(glob);
  } catch (error) {
    if (error instanceof WorkspacePathError) throw new SkillToolError(`workspace_grep: glob ${error.message}`);
    throw error;
  }
}
