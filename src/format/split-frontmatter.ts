import { normalizeSkillText } from './decode-skill-text.js';

/** A SKILL.md cut into its YAML frontmatter and its Markdown body. */
export type FrontmatterSplit =
  /** The first line is not `---`: the whole text is body. */
  | { kind: 'missing'; body: string; bodyStartLine: number }
  /** The first line is `---` but no later line is: the whole text is body. */
  | { kind: 'unclosed'; body: string; bodyStartLine: number }
  | {
      kind: 'closed';
      /** The text between the delimiter lines (LF line ends). */
      yaml: string;
      /** 1-based line of the YAML's first line (always 2). */
      yamlStartLine: number;
      /** 1-based line of the closing `---`. */
      closingLine: number;
      /** The text after the closing line, without leading blank lines and trailing white space. */
      body: string;
      /** 1-based line of the body's first line. */
      bodyStartLine: number;
    };

function isDelimiterLine(text: string, start: number, end: number): boolean {
  if (end - start < 3 || !text.startsWith('---', start)) return false;
  for (let index = start + 3; index < end; index += 1) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x09) return false;
  }
  return true;
}

/** Line feeds in `text` from `start` up to `end`. */
export function countLineBreaks(text: string, start: number, end: number): number {
  let count = 0;
  for (let index = text.indexOf('\n', start); index !== -1 && index < end; index = text.indexOf('\n', index + 1))
    count += 1;
  return count;
}

/** Removes leading blank lines (not the first line's indentation) and trailing white space. */
function trimBody(text: string, start: number, firstLine: number): { body: string; bodyStartLine: number } {
  let lineStart = start;
  let line = firstLine;
  for (;;) {
    const lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1 || text.slice(lineStart, lineEnd).trim() !== '') break;
    lineStart = lineEnd + 1;
    line += 1;
  }
  return { body: text.slice(lineStart).trimEnd(), bodyStartLine: line };
}

/**
 * Splits a SKILL.md text. The frontmatter opens with a `---` line at the very start (a BOM is
 * ignored, trailing spaces on the delimiter are tolerated) and closes at the next line that is
 * `---`, so a `---` inside a value never closes it. CRLF and CR line ends are accepted.
 */
export function splitFrontmatter(input: string): FrontmatterSplit {
  const text = normalizeSkillText(input);
  const firstEnd = text.indexOf('\n');
  const openingEnd = firstEnd === -1 ? text.length : firstEnd;
  if (!isDelimiterLine(text, 0, openingEnd)) return { kind: 'missing', ...trimBody(text, 0, 1) };
  if (firstEnd === -1) return { kind: 'unclosed', ...trimBody(text, 0, 1) };

  const yamlStart = firstEnd + 1;
  let searchFrom = firstEnd;
  for (;;) {
    const candidate = text.indexOf('\n---', searchFrom);
    if (candidate === -1) return { kind: 'unclosed', ...trimBody(text, 0, 1) };
    const lineStart = candidate + 1;
    const lineEnd = text.indexOf('\n', lineStart);
    const closingEnd = lineEnd === -1 ? text.length : lineEnd;
    if (isDelimiterLine(text, lineStart, closingEnd)) {
      const yaml = text.slice(yamlStart, candidate + 1);
      const closingLine = 2 + countLineBreaks(text, yamlStart, candidate + 1);
      const rest =
        lineEnd === -1 ? { body: '', bodyStartLine: closingLine + 1 } : trimBody(text, lineEnd + 1, closingLine + 1);
      return { kind: 'closed', yaml, yamlStartLine: 2, closingLine, ...rest };
    }
    searchFrom = closingEnd;
  }
}
