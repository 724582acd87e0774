import { z } from 'zod';
import { SkillFileNotFoundError, SkillPathError } from '../repository/errors.js';
import { SkillToolError } from './errors.js';
import { getVisibleSkill, parseToolInput, type SkillToolSettings } from './skill-tool-support.js';
import type { ToolDefinition } from './types.js';

export interface SkillReadInput {
  skill: string;
  path?: string | undefined;
  offset?: number | undefined;
}

/** Default page of skill_read, in characters (about 5,000 tokens of English). */
export const defaultReadPageCharacters = 20_000;

function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8192).includes(0);
}

/**
 * One page of `text` from `offset`, cut at a line end when one is in the second half of the page,
 * with a last line that says where the next page starts: a long file is never cut silently.
 */
export function pageText(text: string, offset: number, pageCharacters: number, nextCall: (offset: number) => string): string {
  if (offset > text.length) throw new SkillToolError(`offset ${offset} is past the end (${text.length} characters); use an offset below ${text.length}.`);
  if (offset === 0 && text.length <= pageCharacters) return text;
  let end = Math.min(text.length, offset + pageCharacters);
  if (end < text.length) {
    const lineEnd = text.lastIndexOf('\n', end - 1);
    if (lineEnd + 1 > offset + pageCharacters / 2) end = lineEnd + 1;
  }
  const more = end < text.length ? `; call ${nextCall(end)} for the rest` : '; this is the end';
  return `${text.slice(offset, end)}\n\n[characters ${offset}-${end} of ${text.length}${more}]`;
}

export function createSkillReadTool(settings: SkillToolSettings): ToolDefinition<SkillReadInput, string> {
  const inputSchema = z.object({
    skill: settings.skillSchema,
    path: z.string().optional().describe("A file of the skill, relative to its folder; omit it for the skill's instructions and file list"),
    offset: z.number().int().min(0).optional().describe('Character offset to continue a long file from (given at the end of the previous page)'),
  });
  return {
    name: 'skill_read',
    writesState: false,
    description:
      "Read a skill without loading it: without path, its SKILL.md instructions and the list of its files; with path, one of those files (a script, template or reference). Long files come in pages.",
    inputSchema,
    async execute(input, context) {
      const args = parseToolInput('skill_read', inputSchema, input, '{"skill":"<name>","path":"<file>"}');
      const skill = await getVisibleSkill(settings, args.skill, context);
      const offset = args.offset ?? 0;
      const path = args.path?.trim() ?? '';
      const nextCall = (next: number) => JSON.stringify({ skill: skill.name, ...(path === '' ? {} : { path }), offset: next });
      if (path === '') {
        const files = await settings.repository.listFiles(skill.name, context.skillContext);
        const index = `Files of skill "${skill.name}" (read one with skill_read and its path):\n${files.map((file) => `- ${file}`).join('\n')}`;
        return pageText(`${skill.body.trim()}\n\n${index}`, offset, settings.readPageCharacters, nextCall);
      }
      let bytes: Buffer;
      try {
        bytes = await settings.repository.readFile(skill.name, path, context.skillContext);
      } catch (error) {
        if (error instanceof SkillPathError) throw new SkillToolError(`${error.message}. Paths are relative to the skill folder; call skill_read {"skill":"${skill.name}"} for its files.`);
        if (error instanceof SkillFileNotFoundError) throw new SkillToolError(`${error.message}. Call skill_read {"skill":"${skill.name}"} to list its files.`);
        throw error;
      }
      if (looksBinary(bytes)) return `"${path}" of skill "${skill.name}" is a binary file (${bytes.length} bytes); it is not shown as text.`;
      return pageText(bytes.toString('utf8'), offset, settings.readPageCharacters, nextCall);
    },
  };
}
