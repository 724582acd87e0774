import type { SkillSummary } from '../repository/types.js';

/** How `renderCatalog` lays out skills: plain `text` lines or `xml` (`<available_skills>`). */
export type CatalogFormat = 'text' | 'xml';

/**
 * What an XML entry's `<location>` holds. `skill-uri` (default): `skill://<name>/SKILL.md`, the
 * address the model's own tools take (skill_read's `path`, skill_run's `inputs`, the MCP server's
 * resources), the same on every host, and no host folder told to a model that cannot open it.
 * `path`: the host path of the skill's SKILL.md, for an agent that reads files from the host itself.
 */
export type CatalogLocation = 'skill-uri' | 'path';

/** Descriptions are never shortened below this many code points; past that, skills are listed by name. */
export const minimumDescriptionLength = 40;

/**
 * The longest description the catalog shows, in code points: the Agent Skills spec's limit. A
 * longer one (a loader may accept it leniently) is cut here, before anything counts it, so one
 * oversized description can neither crowd out the others nor make a budget search slow.
 */
export const maxCatalogDescriptionLength = 1024;

/** One skill as the catalog shows it. */
export interface CatalogEntry {
  name: string;
  /** Undefined: listed by name only. */
  description?: string;
  location?: string;
}

/** Multi-line descriptions become one line so each skill is exactly one catalog line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * A name as the catalog shows it: runs of whitespace and control characters become one space. The
 * repository refuses such names at load; this keeps a name from another source (a custom
 * repository, a skill defined in code) from breaking the one-line-per-skill shape or smuggling a
 * line of its own into the prompt.
 */
function catalogName(name: string): string {
  return name.replace(/[\s\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').trim();
}

/** A description as the catalog shows it: one line, at most `maxCatalogDescriptionLength` code points. */
function catalogDescription(text: string): string {
  const line = oneLine(text);
  return line.length <= maxCatalogDescriptionLength ? line : shortenDescription(line, maxCatalogDescriptionLength);
}

function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#x27;');
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The first `count` code points of `text` (a pair of surrogates is one code point, a lone one is one too). */
function codePointPrefix(text: string, count: number): string {
  let index = 0;
  for (let taken = 0; taken < count && index < text.length; taken += 1) {
    index += isHighSurrogate(text.charCodeAt(index)) && isLowSurrogate(text.charCodeAt(index + 1)) ? 2 : 1;
  }
  return text.slice(0, index);
}

/** Cuts to at most `limit` code points, at a word boundary when one is near, ending in `…`. */
export function shortenDescription(text: string, limit: number): string {
  return shortenToLimit(text, [...text].length, limit);
}

/**
 * `shortenDescription` for a text whose length in code points is known: the budget search cuts
 * each description many times, and splitting it into code points each time (or keeping the split
 * for every skill) costs more than the cut itself.
 */
export function shortenToLimit(text: string, length: number, limit: number): string {
  if (length <= limit) return text;
  let cut = codePointPrefix(text, Math.max(limit - 1, 0));
  const space = cut.lastIndexOf(' ');
  if (space >= cut.length * 0.7) cut = cut.slice(0, space);
  return `${cut.replace(/[\s,;:.\-–—]+$/u, '')}…`;
}

function locationOf(skill: SkillSummary, style: CatalogLocation): string | undefined {
  // A skill defined in code has no SKILL.md to point at, in either style.
  if (skill.path === undefined) return undefined;
  return style === 'path' ? `${skill.path.replace(/[\\/]+$/, '')}/SKILL.md` : `skill://${skill.name}/SKILL.md`;
}

/** A skill's full entry: its name and description as the catalog shows them, and in XML its location. */
export function catalogEntry(
  skill: SkillSummary,
  format: CatalogFormat,
  location: CatalogLocation = 'skill-uri',
): CatalogEntry {
  const located = format === 'xml' ? locationOf(skill, location) : undefined;
  return {
    name: catalogName(skill.name),
    description: catalogDescription(skill.description),
    ...(located === undefined ? {} : { location: located }),
  };
}

/** One entry's part of the catalog; a text entry listed by name only has none (it goes on the `Other skills` line). */
export function renderEntry(entry: CatalogEntry, format: CatalogFormat): string {
  if (format === 'text') return entry.description === undefined ? '' : `- ${entry.name}: ${entry.description}\n`;
  const parts = [`<skill>\n<name>\n${escapeXml(entry.name)}\n</name>\n`];
  if (entry.description !== undefined) parts.push(`<description>\n${escapeXml(entry.description)}\n</description>\n`);
  if (entry.location !== undefined) parts.push(`<location>\n${escapeXml(entry.location)}\n</location>\n`);
  parts.push('</skill>\n');
  return parts.join('');
}

/** What the header says when some skills are listed by name only ('' when all are described). */
export function describedNote(described: number, total: number): string {
  return described < total ? ` (showing ${described} of ${total} skills; the others are listed by name)` : '';
}

/** The text catalog's line of skills listed by name only starts with this. */
export const otherSkillsLabel = 'Other skills:';

/** The guidance as it follows the list ('' when there is none). */
export function guidancePart(guidanceText: string): string {
  return guidanceText === '' ? '' : `\n\n${guidanceText}`;
}

/**
 * The catalog as consecutive parts (a header, one part per skill, the tail, the guidance): joined,
 * they are the catalog.
 */
export function renderParts(entries: readonly CatalogEntry[], format: CatalogFormat, guidanceText: string): string[] {
  let described = 0;
  for (const entry of entries) if (entry.description !== undefined) described += 1;
  const note = describedNote(described, entries.length);
  const parts: string[] = [];
  if (format === 'xml') {
    if (note !== '') parts.push(`${note.trim()}\n`);
    parts.push('<available_skills>\n');
    for (const entry of entries) parts.push(renderEntry(entry, format));
    parts.push('</available_skills>');
  } else {
    parts.push(`Available skills${note}:\n`);
    const others: string[] = [];
    for (const entry of entries) {
      if (entry.description !== undefined) parts.push(renderEntry(entry, format));
      else others.push(entry.name);
    }
    if (others.length > 0) parts.push(`${otherSkillsLabel} ${others.join(', ')}\n`);
    // The list ends without trailing whitespace; every part starts with a visible character, so only the last part can
    // hold any.
    parts.push(parts.pop()!.trimEnd());
  }
  if (guidanceText !== '') parts.push(guidancePart(guidanceText));
  return parts;
}
