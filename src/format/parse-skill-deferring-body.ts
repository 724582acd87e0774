import { Buffer, isUtf8 } from 'node:buffer';
import { normalizeSkillName } from './frontmatter-rules.js';
import { modelInvocableFromFrontmatter } from './model-invocation.js';
import {
  type ClosedSplit,
  invalidUtf8Warning,
  type PendingRuleWarnings,
  parseSkillMarkdown,
  parseSplit,
  ruleWarnings,
} from './parse-skill.js';
import { parseToolsSection } from './parse-tools-section.js';
import { readSimpleFrontmatterFields } from './read-simple-frontmatter.js';
import { countLineBreaks, splitFrontmatter } from './split-frontmatter.js';
import type { ParsedSkill, ParseSkillOptions } from './types.js';

// A listing's parse: the frontmatter now, the rest of the file when the skill is opened.

/**
 * A SKILL.md parsed for a listing: `name` and `description` are read now, and the rest of
 * parseSkillMarkdown's result (`body`, `tools`, `bodyStartLine`, `warnings`) is worked out by
 * `complete()`, once, from the file's bytes given again then. Nothing of the bytes parsed first is
 * kept: a listing of many skills holds their frontmatters, not their files, and the caller may
 * read every file into the same buffer. A frontmatter the fast reader accepts (read-simple-frontmatter.ts,
 * in its fields-only mode) is kept as its text until `frontmatter` or `complete()` needs its
 * mapping. A class rather than a ParsedSkill with accessors: an object literal with getters and
 * setters made eight closures and a slow object per skill, which cost a cold corpus listing more
 * than reading the files did.
 */
export class DeferredSkillParse {
  readonly name: string;
  readonly description: string;
  private state: ParseState;
  private readonly rename: SkillRename | undefined;
  private completed: ParsedSkill | undefined;

  constructor(state: ParseState, rename?: SkillRename) {
    const listed = state.kind === 'read' ? state.eager : state;
    this.name = rename?.name ?? listed.name;
    this.description = listed.description;
    this.state = state;
    this.rename = rename;
  }

  /** The frontmatter mapping, read now if it was kept as text. */
  get frontmatter(): Record<string, unknown> {
    return this.read().eager.frontmatter;
  }

  /**
   * `false` when the frontmatter hides the skill from the model (model-invocation.ts); for a
   * frontmatter kept as text, what the fields-only read worked out.
   */
  get modelInvocable(): false | undefined {
    return this.state.kind === 'text'
      ? this.state.modelInvocable
      : modelInvocableFromFrontmatter(this.state.eager.frontmatter);
  }

  /** Whether `complete()` needs the file's bytes: false once completed, or when the whole file was parsed at once. */
  get needsBytes(): boolean {
    return this.completed === undefined && (this.state.kind === 'text' || this.state.rules !== undefined);
  }

  /**
   * The same parse under another name, `warning` added after the others and every earlier warning
   * passed through `escapeWarning` (it may quote the name being replaced).
   */
  renamed(name: string, warning: string, escapeWarning: (text: string) => string): DeferredSkillParse {
    return new DeferredSkillParse(this.state, { name, warning, escapeWarning });
  }

  /** The parse without the body, the frontmatter read first if it was kept as text. */
  private read(): ReadState {
    if (this.state.kind === 'text') {
      const { yaml, options } = this.state;
      const pending: PendingRuleWarnings[] = [];
      const eager = parseSplit(closedSplitOf(yaml), false, options, 'fast-when-simple', emptyRest, pending);
      this.state = { kind: 'read', eager, rules: pending[0] };
    }
    return this.state;
  }

  /**
   * What parseSkillMarkdown gives for the file (with the rename applied); the same object every
   * time. `bytes` must be the version of the file this was parsed from; they are needed on the
   * first call when `needsBytes` says so, and not kept.
   */
  complete(bytes?: Uint8Array): ParsedSkill {
    if (this.completed !== undefined) return this.completed;
    const { eager, rules } = this.read();
    let parsed = eager;
    if (rules !== undefined) {
      if (bytes === undefined) throw new TypeError("DeferredSkillParse.complete(): the file's bytes are needed");
      const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const whole = splitFrontmatter(buffer.toString('utf8'));
      parsed = {
        ...parsed,
        body: whole.body,
        tools: parseToolsSection(whole.body),
        bodyStartLine: whole.bodyStartLine,
        warnings: [
          ...(isUtf8(buffer) ? [] : [invalidUtf8Warning]),
          ...parsed.warnings.slice(0, rules.at),
          ...ruleWarnings(rules),
          ...parsed.warnings.slice(rules.at),
        ],
      };
    }
    if (this.rename !== undefined) {
      const { name, warning, escapeWarning } = this.rename;
      parsed = { ...parsed, name, warnings: [...parsed.warnings.map(escapeWarning), warning] };
    }
    this.completed = parsed;
    return parsed;
  }
}

/**
 * Where a DeferredSkillParse stands: its frontmatter read (`eager`, the parse without the body;
 * `rules` undefined when that is already the whole parse, a file the fast path could not cut), or
 * kept as `yaml`, with the name and description the fields-only read found, normalized as the
 * parse does, whether the model may see the skill, and the options the parse will need.
 */
type ParseState =
  | ReadState
  | {
      kind: 'text';
      name: string;
      description: string;
      modelInvocable: false | undefined;
      yaml: string;
      options: ParseSkillOptions;
    };

type ReadState = { kind: 'read'; eager: ParsedSkill; rules: PendingRuleWarnings | undefined };

interface SkillRename {
  name: string;
  warning: string;
  escapeWarning: (text: string) => string;
}

/**
 * parseSkillMarkdown for a repository that lists many skills and opens few: only the bytes up to
 * the frontmatter's closing line are decoded and read now; see DeferredSkillParse. `complete()`,
 * given the same bytes, gives the same result as parseSkillMarkdown (the same fields, warnings in
 * the same order), and the same errors are thrown here. `input` is not kept: the caller may reuse
 * it once this returns. Why: the frontmatter is a few percent of a real SKILL.md, and decoding
 * every body, scanning it for a `Tools:` section,
 * checking every file for invalid UTF-8 and applying the specification's rules to every skill was
 * most of a cold listing's parsing.
 */
export function parseSkillMarkdownDeferringBody(
  input: Uint8Array,
  options: ParseSkillOptions = {},
): DeferredSkillParse {
  const bytes = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const plainYaml = plainFrontmatterYaml(bytes);
  const fields = plainYaml === undefined ? undefined : readSimpleFrontmatterFields(plainYaml);
  if (fields !== undefined)
    return new DeferredSkillParse({
      kind: 'text',
      name: normalizeSkillName(fields.name),
      description: fields.description.trim(),
      modelInvocable: fields.modelInvocable,
      yaml: plainYaml as string,
      options,
    });
  const headEnd = frontmatterEnd(bytes);
  if (headEnd === undefined)
    return new DeferredSkillParse({ kind: 'read', eager: parseSkillMarkdown(bytes, options), rules: undefined });
  // Cut at a line break, the head decodes exactly as the start of the whole file does.
  const split = splitFrontmatter(bytes.toString('utf8', 0, headEnd));
  if (split.kind !== 'closed')
    return new DeferredSkillParse({ kind: 'read', eager: parseSkillMarkdown(bytes, options), rules: undefined });
  const pending: PendingRuleWarnings[] = [];
  const eager = parseSplit(split, false, options, 'fast-when-simple', emptyRest, pending);
  return new DeferredSkillParse({ kind: 'read', eager, rules: pending[0] });
}

/**
 * The YAML text of a file that opens with a `---` line and whose first line starting with `---`
 * after it is `---` alone, with LF line ends up to there: decoded straight from those bytes, it is
 * what splitFrontmatter gives as `yaml` for the whole file (a CR in it is left to the caller's
 * reader, which refuses it). Undefined for any other opening, which the split works out.
 */
function plainFrontmatterYaml(bytes: Buffer): string | undefined {
  if (bytes[0] !== 0x2d || bytes[1] !== 0x2d || bytes[2] !== 0x2d || bytes[3] !== 0x0a) return undefined;
  const closing = bytes.indexOf(closingPrefix, 3);
  if (closing === -1) return undefined;
  const afterClosing = closing + 4;
  if (afterClosing < bytes.length && bytes[afterClosing] !== 0x0a) return undefined;
  return bytes.toString('utf8', 4, closing + 1);
}

/** What splitFrontmatter gives for a frontmatter of `yaml` (see plainFrontmatterYaml), the body left out: a caller of parseSplit gives it apart. */
function closedSplitOf(yaml: string): ClosedSplit {
  const closingLine = 2 + countLineBreaks(yaml, 0, yaml.length);
  return { kind: 'closed', yaml, yamlStartLine: 2, closingLine, body: '', bodyStartLine: closingLine + 1 };
}

const emptyRest: Pick<ParsedSkill, 'body' | 'tools' | 'bodyStartLine'> = { body: '', tools: [], bodyStartLine: 0 };

/**
 * Where the frontmatter's closing delimiter line ends (its line break, or the end of the file):
 * the first line after the opening one that starts with `---`. Undefined when the file has no such
 * line; the caller then parses the whole file, which says what is wrong.
 */
function frontmatterEnd(bytes: Buffer): number | undefined {
  // The common case, LF line ends: every search stops within the frontmatter. A search for a byte
  // the file lacks (a CR, in most files) runs to its end, which over a large collection cost more
  // than decoding the frontmatters.
  const firstLineFeed = bytes.indexOf(0x0a);
  const candidate = firstLineFeed === -1 ? -1 : bytes.indexOf(closingPrefix, firstLineFeed);
  // Backward searches from a known position look at the frontmatter only, and need no sub-buffer
  // (a view made per file cost more than the search).
  if (candidate !== -1 && bytes.lastIndexOf(0x0d, candidate) === -1) {
    const lineFeed = bytes.indexOf(0x0a, candidate + 4);
    const lineEnd = lineFeed === -1 ? bytes.length : lineFeed;
    if (bytes.lastIndexOf(0x0d, lineEnd - 1) === -1) return lineEnd;
  }
  return frontmatterEndAnyLineBreak(bytes);
}

const closingPrefix = Buffer.from('\n---');

/** frontmatterEnd for files with CR or CRLF line ends (or no `\n---` at all). */
function frontmatterEndAnyLineBreak(bytes: Buffer): number | undefined {
  const firstBreak = lineBreakFrom(bytes, 0);
  if (firstBreak === -1) return undefined;
  const afterLineFeed = bytes.indexOf('\n---', firstBreak);
  const afterReturn = bytes.indexOf('\r---', firstBreak);
  const candidate =
    afterLineFeed === -1 ? afterReturn : afterReturn === -1 ? afterLineFeed : Math.min(afterLineFeed, afterReturn);
  if (candidate === -1) return undefined;
  const end = lineBreakFrom(bytes, candidate + 4);
  return end === -1 ? bytes.length : end;
}

function lineBreakFrom(bytes: Buffer, start: number): number {
  const lineFeed = bytes.indexOf(0x0a, start);
  const carriageReturn = bytes.indexOf(0x0d, start);
  if (lineFeed === -1) return carriageReturn;
  if (carriageReturn === -1) return lineFeed;
  return Math.min(lineFeed, carriageReturn);
}
