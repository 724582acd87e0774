import type { Document, LineCounter, Scalar, YAMLMap } from 'yaml';
import { decodeSkillText } from './decode-skill-text.js';
import { SkillParseError } from './errors.js';
import { frontmatterProblems, LENIENT_EXTRA_FRONTMATTER_FIELDS, normalizeSkillName } from './frontmatter-rules.js';
import { isPlainRecord } from './is-plain-record.js';
import { parseAllowedTools } from './parse-allowed-tools.js';
import { parseToolsSection } from './parse-tools-section.js';
import { type QuotedColonValue, quoteColonValues } from './quote-colon-values.js';
import { readSimpleFrontmatter } from './read-simple-frontmatter.js';
import { type FrontmatterSplit, splitFrontmatter } from './split-frontmatter.js';
import type { ParsedSkill, ParseSkillOptions } from './types.js';
import { yamlLibrary } from './yaml-library.js';

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
  const { isNode, isScalar } = yamlLibrary();
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
  const { LineCounter, parseDocument } = yamlLibrary();
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

export type ClosedSplit = Extract<FrontmatterSplit, { kind: 'closed' }>;

function readFrontmatterYaml(split: ClosedSplit, file: string | undefined, warnings: string[]): FrontmatterReading {
  const { document, lineCounter } = loadFrontmatterYaml(split.yaml, split.yamlStartLine, file, warnings);
  const fileLineOf = (offset: number): number => lineCounter.linePos(offset).line + split.yamlStartLine - 1;
  const contents = document.contents;
  const { isMap, isScalar } = yamlLibrary();
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
export interface PendingRuleWarnings {
  at: number;
  asWritten: Record<string, unknown>;
  folderName: string | undefined;
}

export const invalidUtf8Warning = 'SKILL.md is not valid UTF-8; invalid bytes were replaced with U+FFFD';

export function ruleWarnings(pending: PendingRuleWarnings): string[] {
  return frontmatterProblems(pending.asWritten, pending.folderName, LENIENT_EXTRA_FRONTMATTER_FIELDS);
}

/**
 * The parse of a split file: the frontmatter read (fast reader, else the YAML library), the
 * required fields checked, the rules applied now or left in `pendingRules`. Shared with
 * parse-skill-deferring-body.ts, which gives the body apart (`rest`).
 */
export function parseSplit(
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
