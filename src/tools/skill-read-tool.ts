import { z } from 'zod';
import { utf8Window } from '../disclosure/utf8-window.js';
import { escapeUnsafeCharacters } from '../format/escape-unsafe-characters.js';
import { SkillFileNotFoundError, SkillFileReadError, SkillPathError } from '../repository/errors.js';
import { SkillToolError } from './errors.js';
import {
  acceptingSkillNameAlias,
  getVisibleSkill,
  parseToolInput,
  type SkillToolSettings,
} from './skill-tool-support.js';
import type { ToolDefinition } from './types.js';

export interface SkillReadInput {
  skill: string;
  path?: string | undefined;
  offset?: number | undefined;
}

/** Default page of skill_read, in bytes of UTF-8 (about 5,000 tokens of English). */
export const defaultReadPageBytes = 20_000;

function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8192).includes(0);
}

/**
 * One page of `bytes` from byte `offset`: only that window is decoded (a large file costs one
 * page, not a decode of the whole file), cut at a line end when one is in the second half of the
 * page and never inside a character, with a last line that says where the next page starts: a long
 * file is never cut silently.
 */
export function pageText(
  bytes: Buffer,
  offset: number,
  pageBytes: number,
  nextCall: (offset: number) => string,
): string {
  if (offset > bytes.length)
    throw new SkillToolError(
      `offset ${offset} is past the end (${bytes.length} bytes); use an offset below ${bytes.length}.`,
    );
  if (offset === 0 && bytes.length <= pageBytes) return bytes.toString('utf8');
  let window = utf8Window(bytes, offset, pageBytes);
  if (window.end < bytes.length) {
    const lineEnd = bytes.lastIndexOf(0x0a, window.end - 1);
    if (lineEnd + 1 > window.start + pageBytes / 2)
      window = utf8Window(bytes, window.start, lineEnd + 1 - window.start);
  }
  const more = window.end < bytes.length ? `; call ${nextCall(window.end)} for the rest` : '; this is the end';
  return `${window.text}\n\n[bytes ${window.start}-${window.end} of ${bytes.length}${more}]`;
}

/** What the model is told when the repository will not serve a file; each names what to do instead. */
export function unreadableFileMessage(error: SkillFileReadError): string {
  const listCall = `call skill_read {"skill":"${error.skill}"} for its other files`;
  if (error.problem === 'too-large')
    return `${error.message}. It cannot be shown; ${listCall}, or run a script of the skill that reads it.`;
  return `${error.message}. ${listCall}.`;
}

/**
 * A path as the model may write it: relative to the skill folder, or the `skill://<name>/<file>`
 * address the XML catalog's `<location>` gives (and the MCP server's resources use).
 */
function skillRelativePath(path: string, skill: string): string {
  const uri = /^skill:\/\/([^/]*)\/?(.*)$/s.exec(path);
  if (uri === null) return path;
  if (uri[1] !== skill)
    throw new SkillToolError(
      `path "${escapeUnsafeCharacters(path)}" is in skill "${escapeUnsafeCharacters(uri[1] ?? '')}", not "${skill}"; call skill_read with {"skill":"${escapeUnsafeCharacters(uri[1] ?? '')}"}.`,
    );
  return uri[2] ?? '';
}

export function createSkillReadTool(settings: SkillToolSettings): ToolDefinition<SkillReadInput, string> {
  const inputSchema = acceptingSkillNameAlias(
    z.object({
      skill: settings.skillSchema,
      path: z
        .string()
        .optional()
        .describe("A file of the skill, relative to its folder; omit it for the skill's instructions and file list"),
      offset: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe('Byte offset to continue a long file from (given at the end of the previous page)'),
    }),
  );
  return {
    name: 'skill_read',
    writesState: false,
    description:
      'Read a skill without loading it: without path, its SKILL.md instructions and the list of its files; with path, one of those files (a script, template or reference). Long files come in pages.',
    inputSchema,
    async execute(input, context) {
      const args = parseToolInput('skill_read', inputSchema, input, '{"skill":"<name>","path":"<file>"}');
      const skill = await getVisibleSkill(settings, args.skill, context);
      const offset = args.offset ?? 0;
      const path = skillRelativePath(args.path?.trim() ?? '', skill.name);
      const nextCall = (next: number) =>
        JSON.stringify({ skill: skill.name, ...(path === '' ? {} : { path }), offset: next });
      if (path === '') {
        const files = await settings.repository.listFiles(skill.name, context.skillContext);
        const index = `Files of skill "${skill.name}" (read one with skill_read and its path):\n${files.map((file) => `- ${escapeUnsafeCharacters(file)}`).join('\n')}`;
        return pageText(
          Buffer.from(`${skill.body.trim()}\n\n${index}`, 'utf8'),
          offset,
          settings.readPageBytes,
          nextCall,
        );
      }
      let bytes: Buffer;
      try {
        bytes = await settings.repository.readFile(skill.name, path, context.skillContext);
      } catch (error) {
        if (error instanceof SkillPathError)
          throw new SkillToolError(
            `${error.message}. Paths are relative to the skill folder; call skill_read {"skill":"${skill.name}"} for its files.`,
          );
        if (error instanceof SkillFileReadError) throw new SkillToolError(unreadableFileMessage(error));
        if (error instanceof SkillFileNotFoundError)
          throw new SkillToolError(`${error.message}. Call skill_read {"skill":"${skill.name}"} to list its files.`);
        throw error;
      }
      if (looksBinary(bytes))
        return `"${path}" of skill "${skill.name}" is a binary file (${bytes.length} bytes); it is not shown as text.`;
      return pageText(bytes, offset, settings.readPageBytes, nextCall);
    },
  };
}
