import { Buffer, isUtf8 } from 'node:buffer';
import { type Document, isMap, isNode, isScalar, LineCounter, parseDocument, type Scalar, type YAMLMap } from 'yaml';
import { decodeSkillText } from './decode-skill-text.js';
import { SkillParseError } from './errors.js';
import { frontmatterProblems, LENIENT_EXTRA_FRONTMATTER_FIELDS, normalizeSkillName } from './frontmatter-rules.js';
import { isPlainRecord } from './is-plain-record.js';
import { modelInvocableFromFrontmatter } from './model-invocation.js';
import { parseAllowedTools } from './parse-allowed-tools.js';
import { parseToolsSection } from './parse-tools-section.js';
import { type QuotedColonValue, quoteColonValues } from './quote-colon-values.js';
import { readSimpleFrontmatter, readSimpleFrontmatterFields } from './read-simple-frontmatter.js';
import { countLineBreaks, type FrontmatterSplit, splitFrontmatter } from './split-frontmatter.js';
import type { ParsedSkill, ParseSkillOptions } from './types.js';

/** The fields the specification types as strings; a YAML number or boolean there is read as its source text. */
const stringFields = ['name', 'description', 'license', 'compatibility'] as const;

/** A scalar as the author wrote it: `1.10` stays "1.10" rather than becoming the number 1.1. */
function writtenText(scalar: Scalar): string {
  if (typeof scalar.value === 'string') return scalar.value;
  if (scalar.value === null || scalar.value === undefined) return '';
  return scalar.source ?? String(scalar.value);
}

/**
 * `metadata` as the specification defines it, a map to strings: scalar values as written, nested
 * collections (which real skills ship) as the YAML library produced them.
 */
function metadataAsWritten(map: YAMLMap, document: Document.Parsed): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  for (const pair of map.items) {
    const key = isScalar(pair.key) ? writtenText(pair.key) : String(pair.key);
    const value = isScalar(pair.value)
      ? writtenText(pair.value)
      : isNode(pair.value)
        ? pair.value.toJS(document, { maxAliasCount: 100 })
        : pair.value;
    // defineProperty: a `__proto__` key must stay data, not replace the prototype.
    Object.defineProperty(metadata, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return metadata;
}

interface ParsedYaml {
  document: Document.Parsed;
  lineCounter: LineCounter;
}

function parseYaml(yaml: string): ParsedYaml {
  const lineCounter = new LineCounter();
  // Duplicate keys are tolerated here (the last one wins) and reported as a warning by the caller.
  const document = parseDocument(yaml, { lineCounter, prettyErrors: false, uniqueKeys: false });
  return { document, lineCounter };
}

function colonFallbackWarning(key: string, fileLine: number): string {
  return `line ${fileLine}: the value of '${key}' holds ': ' and is not valid YAML unquoted; it was read as a quoted string`;
}

/**
 * Loads the YAML, retrying once with the colon fallback. Throws SkillParseError with the first
 * error of the original text when even the repaired text does not parse.
 */
function loadFrontmatterYaml(
  yaml: string,
  yamlStartLine: number,
  file: string | undefined,
  warnings: string[],
): ParsedYaml {
  const first = parseYaml(yaml);
  const firstError = first.document.errors[0];
  if (firstError === undefined) return first;
  const repair = quoteColonValues(yaml);
  if (repair.quoted.length > 0) {
    const second = parseYaml(repair.yaml);
    if (second.document.errors.length === 0) {
      for (const { key, line } of repair.quoted) {
        warnings.push(colonFallbackWarning(key, line + yamlStartLine - 1));
      }
      return second;
    }
  }
  const line = first.lineCounter.linePos(firstError.pos[0]).line + yamlStartLine - 1;
  throw new SkillParseError(
    `Invalid YAML in frontmatter: ${firstError.message}`,
    { file, line },
    { cause: firstError },
  );
}

/** A frontmatter mapping read either way, with what the rules need. */
interface FrontmatterReading {
  /** The mapping with the YAML types. */
  frontmatter: Record<string, unknown>;
  /** The same with the specification's string fields and `metadata` scalars as written. */
  asWritten: Record<string, unknown>;
  /** Line in the file of each top-level key. */
  keyLines: Map<string, number>;
}

type ClosedSplit = Extract<FrontmatterSplit, { kind: 'closed' }>;

function readFrontmatterYaml(split: ClosedSplit, file: string | undefined, warnings: string[]): FrontmatterReading {
  const { document, lineCounter } = loadFrontmatterYaml(split.yaml, split.yamlStartLine, file, warnings);
  const fileLineOf = (offset: number): number => lineCounter.linePos(offset).line + split.yamlStartLine - 1;
  const contents = document.contents;
  if (contents !== null && !isMap(contents)) {
    throw new SkillParseError('SKILL.md frontmatter must be a YAML mapping', {
      file,
      line: fileLineOf(contents.range[0]),
    });
  }

  let frontmatter: Record<string, unknown>;
  try {
    const value: unknown = document.toJS({ maxAliasCount: 100 });
    frontmatter = isPlainRecord(value) ? value : {};
  } catch (error) {
    throw new SkillParseError(
      `Invalid YAML in frontmatter: ${(error as Error).message}`,
      { file, line: split.yamlStartLine },
      { cause: error },
    );
  }

  // The rules judge what the author wrote: `name: 2048` is the name "2048", not a number.
  const asWritten: Record<string, unknown> = { ...frontmatter };
  const keyLines = new Map<string, number>();
  const seenKeys = new Set<string>();
  for (const pair of contents?.items ?? []) {
    const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
    if (key === undefined) continue;
    if (seenKeys.has(key)) warnings.push(`Duplicate field '${key}' in frontmatter; the last one is used`);
    seenKeys.add(key);
    if (pair.key !== null && isScalar(pair.key) && pair.key.range) keyLines.set(key, fileLineOf(pair.key.range[0]));
    if ((stringFields as readonly string[]).includes(key) && isScalar(pair.value))
      asWritten[key] = writtenText(pair.value);
    if (key === 'metadata')
      asWritten.metadata = isMap(pair.value) ? metadataAsWritten(pair.value, document) : frontmatter.metadata;
  }
  return { frontmatter, asWritten, keyLines };
}

/**
 * The fast reader's result for a frontmatter in the simple shape (see read-simple-frontmatter.ts),
 * including the colon fallback when that is all it needs; undefined sends it to the YAML library.
 */
function readSimpleFrontmatterFast(split: ClosedSplit, warnings: string[]): FrontmatterReading | undefined {
  let reading = readSimpleFrontmatter(split.yaml, split.yamlStartLine);
  let repaired: QuotedColonValue[] = [];
  if (reading?.kind === 'colon-values') {
    // The YAML library refuses such a value, so its first parse would fail and the repaired text be read.
    const repair = quoteColonValues(split.yaml);
    if (repair.quoted.length === 0) return undefined;
    reading = readSimpleFrontmatter(repair.yaml, split.yamlStartLine);
    repaired = repair.quoted;
  }
  if (reading?.kind !== 'read') return undefined;
  for (const { key, line } of repaired) {
    warnings.push(colonFallbackWarning(key, line + split.yamlStartLine - 1));
  }
  const frontmatter = reading.values;
  const asWritten: Record<string, unknown> = { ...frontmatter };
  for (const key of stringFields) {
    const written = reading.written[key];
    if (typeof written === 'string') asWritten[key] = written;
  }
  // `written.metadata` is its own object, as the YAML path gives: changing it does not change `frontmatter`.
  if (isPlainRecord(reading.written.metadata)) asWritten.metadata = reading.written.metadata;
  return { frontmatter, asWritten, keyLines: reading.keyLines };
}

/**
 * Parses one SKILL.md the lenient way the runtime needs (the agentskills.io client guide): every
 * rule of the specification that is broken becomes a warning and the skill still loads, except
 * the cases where there is nothing sensible to load, which throw SkillParseError: no frontmatter
 * (so no description), unclosed frontmatter, YAML that does not parse even after the colon
 * fallback, a frontmatter that is not a mapping, and a missing or empty description.
 * Invalid UTF-8 is replaced by U+FFFD with a warning.
 */
export function parseSkillMarkdown(input: string | Uint8Array, options: ParseSkillOptions = {}): ParsedSkill {
  return parseSkill(input, options, 'fast-when-simple');
}

/**
 * parseSkillMarkdown with every frontmatter read by the YAML library, never by the fast reader:
 * what the identity tests and the parse benchmark compare the fast reader with. Not exported from the package.
 */
export function parseSkillMarkdownWithFullYaml(
  input: string | Uint8Array,
  options: ParseSkillOptions = {},
): ParsedSkill {
  return parseSkill(input, options, 'full-yaml');
}

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

function parseSkill(
  input: string | Uint8Array,
  options: ParseSkillOptions,
  yamlReading: 'fast-when-simple' | 'full-yaml',
): ParsedSkill {
  const { text, replacedInvalidBytes } = decodeSkillText(input);
  const split = splitFrontmatter(text);
  return parseSplit(
    split,
    replacedInvalidBytes,
    options,
    yamlReading,
    split.kind === 'closed'
      ? { body: split.body, tools: parseToolsSection(split.body), bodyStartLine: split.bodyStartLine }
      : undefined,
  );
}

/**
 * The specification's rules over a frontmatter, not yet worked out: `warnings` of the parse
 * without them get them inserted at `at` (see parseSkillMarkdownDeferringBody).
 */
interface PendingRuleWarnings {
  at: number;
  asWritten: Record<string, unknown>;
  folderName: string | undefined;
}

const invalidUtf8Warning = 'SKILL.md is not valid UTF-8; invalid bytes were replaced with U+FFFD';

function ruleWarnings(pending: PendingRuleWarnings): string[] {
  return frontmatterProblems(pending.asWritten, pending.folderName, LENIENT_EXTRA_FRONTMATTER_FIELDS);
}

function parseSplit(
  split: FrontmatterSplit,
  replacedInvalidBytes: boolean,
  options: ParseSkillOptions,
  yamlReading: 'fast-when-simple' | 'full-yaml',
  rest: Pick<ParsedSkill, 'body' | 'tools' | 'bodyStartLine'> | undefined,
  /** When given, the specification's rules are not applied now: what they need is pushed here instead. */
  pendingRules?: PendingRuleWarnings[],
): ParsedSkill {
  const { file, folderName } = options;
  const warnings: string[] = [];
  if (replacedInvalidBytes) warnings.push(invalidUtf8Warning);

  if (split.kind === 'missing') {
    throw new SkillParseError('SKILL.md must start with YAML frontmatter (---); without it there is no description', {
      file,
      line: 1,
    });
  }
  if (split.kind === 'unclosed') {
    throw new SkillParseError('SKILL.md frontmatter not properly closed with ---', { file, line: 1 });
  }

  if (rest === undefined) throw new Error('a closed frontmatter comes with the rest of the file');
  const { frontmatter, asWritten, keyLines } =
    (yamlReading === 'fast-when-simple' ? readSimpleFrontmatterFast(split, warnings) : undefined) ??
    readFrontmatterYaml(split, file, warnings);

  if (!Object.hasOwn(asWritten, 'description')) {
    throw new SkillParseError('Missing required field in frontmatter: description', { file, line: 1 });
  }
  const rawDescription = asWritten.description;
  if (typeof rawDescription !== 'string' || rawDescription.trim() === '') {
    throw new SkillParseError("Field 'description' must be a non-empty string", {
      file,
      line: keyLines.get('description') ?? 1,
    });
  }

  const rules: PendingRuleWarnings = { at: warnings.length, asWritten, folderName };
  if (pendingRules === undefined) warnings.push(...ruleWarnings(rules));
  else pendingRules.push(rules);

  const rawName = asWritten.name;
  let name: string;
  if (typeof rawName === 'string' && rawName.trim() !== '') name = normalizeSkillName(rawName);
  else if (folderName !== undefined && folderName.trim() !== '') name = normalizeSkillName(folderName);
  else
    throw new SkillParseError('the frontmatter has no name and no folder name was given to fall back on', {
      file,
      line: 1,
    });

  const allowedToolsValue = frontmatter['allowed-tools'];
  const allowedToolsIsReadable =
    allowedToolsValue === undefined ||
    allowedToolsValue === null ||
    typeof allowedToolsValue === 'string' ||
    (Array.isArray(allowedToolsValue) &&
      allowedToolsValue.every((item) => typeof item === 'string' || typeof item === 'number'));
  if (!allowedToolsIsReadable) warnings.push("Field 'allowed-tools' must be a string or a list of strings; ignored");

  const parsed: ParsedSkill = {
    name,
    description: rawDescription.trim(),
    body: rest.body,
    tools: rest.tools,
    allowedTools: allowedToolsIsReadable ? parseAllowedTools(asWritten['allowed-tools']) : [],
    frontmatter,
    bodyStartLine: rest.bodyStartLine,
    warnings,
  };
  if (Object.hasOwn(asWritten, 'license')) {
    if (typeof asWritten.license === 'string') parsed.license = asWritten.license;
    else warnings.push("Field 'license' must be a string; ignored");
  }
  if (typeof asWritten.compatibility === 'string') parsed.compatibility = asWritten.compatibility;
  if (Object.hasOwn(asWritten, 'metadata')) {
    if (isPlainRecord(asWritten.metadata)) parsed.metadata = asWritten.metadata;
    else if (asWritten.metadata !== null) warnings.push("Field 'metadata' must be a mapping; ignored");
  }
  return parsed;
}
