/**
 * readListingFields lets a listing skip building a frontmatter's mapping, so whatever it accepts
 * must be read the same by the full parse: the same name and description, a skill the model may
 * see, and (through parseSkillMarkdownDeferringBody) the same ParsedSkill once completed. Checked
 * on hand-written shapes, on generated frontmatter and on every SKILL.md of the corpus.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusRoot, hasCorpus } from '../../test/support/corpus.js';
import { SkillParseError } from './errors.js';
import { normalizeSkillName } from './frontmatter-rules.js';
import { modelHiddenReason } from './model-invocation.js';
import { parseSkillMarkdown, parseSkillMarkdownDeferringBody } from './parse-skill.js';
import { readListingFields } from './read-listing-fields.js';
import { readSimpleFrontmatter } from './read-simple-frontmatter.js';
import { splitFrontmatter } from './split-frontmatter.js';

function parsedOrError(parse: () => unknown): unknown {
  try {
    return { parsed: structuredClone(parse()) };
  } catch (error) {
    if (error instanceof SkillParseError) return { error: error.message, line: error.line };
    throw error;
  }
}

/**
 * When readListingFields accepts the frontmatter of `file`: the simple reader reads it too, with
 * the same written name and description; the full parse lists the skill under them, visible to
 * the model; and the deferred parse, completed, is the full parse. Returns whether it accepted.
 */
function expectAgreement(file: string, folderName = 'demo'): boolean {
  const split = splitFrontmatter(file);
  if (split.kind !== 'closed') return false;
  const fields = readListingFields(split.yaml);
  if (fields === undefined) return false;
  const simple = readSimpleFrontmatter(split.yaml, split.yamlStartLine);
  expect(simple?.kind, file).toBe('read');
  if (simple?.kind !== 'read') return true;
  expect([simple.written.name, simple.written.description], file).toEqual([fields.name, fields.description]);
  const options = { file: '/skills/demo/SKILL.md', folderName };
  const full = parseSkillMarkdown(file, options);
  expect([full.name, full.description], file).toEqual([normalizeSkillName(fields.name), fields.description.trim()]);
  expect(modelHiddenReason(full.frontmatter), file).toBeUndefined();
  const bytes = Buffer.from(file);
  const deferred = parsedOrError(() => {
    const scratch = Buffer.from(bytes);
    const parse = parseSkillMarkdownDeferringBody(scratch, options);
    scratch.fill(0x2d);
    return parse.complete(bytes);
  });
  expect(deferred, file).toEqual({ parsed: structuredClone(full) });
  return true;
}

const skill = (frontmatter: string): string => `---\n${frontmatter}\n---\n# Body\n\nTools:\n- a\n`;

describe('readListingFields', () => {
  it('reads name and description as written, leaving trimming and normalizing to the parse', () => {
    expect(readListingFields('name: pdf-tools\ndescription: Fills PDF forms.\nlicense: MIT\n')).toEqual({
      name: 'pdf-tools',
      description: 'Fills PDF forms.',
    });
    expect(readListingFields('name: \'2048\'\ndescription: "Plays 2048, the game."\n')).toEqual({
      name: '2048',
      description: 'Plays 2048, the game.',
    });
    // A number is the name as written, as the specification's string fields are read.
    expect(readListingFields('name: 2048\ndescription: d\n')).toEqual({ name: '2048', description: 'd' });
    // Scalars are read by the simple reader's own rules: escapes, a doubled quote, a boolean as written.
    expect(readListingFields('name: a\ndescription: "a\\tb"\n')).toEqual({ name: 'a', description: 'a\tb' });
    expect(readListingFields("name: a\ndescription: 'it''s'\n")).toEqual({ name: 'a', description: "it's" });
    expect(readListingFields('name: a\ndescription: true\n')).toEqual({ name: 'a', description: 'true' });
    for (const yaml of ['name: a\ndescription: "a\\tb"', "name: a\ndescription: 'it''s'", 'name: a\ndescription: true'])
      expect(expectAgreement(skill(yaml))).toBe(true);
    expect(
      readListingFields('name: a\ndescription: d\nmetadata:\n  author: me\n  version: 1.10\nversion: 2\n'),
    ).toEqual({ name: 'a', description: 'd' });
  });

  const refused: Record<string, string> = {
    'a blank line': 'name: a\n\ndescription: d\n',
    'a comment line': 'name: a\n# note\ndescription: d\n',
    'a comment after a value': 'name: a # note\ndescription: d\n',
    'a block scalar': 'name: a\ndescription: |\n  d\n',
    'a folded scalar': 'name: a\ndescription: >-\n  d\n',
    'a flow list': 'name: a\ndescription: d\ntags: [a, b]\n',
    'a block list': 'name: a\ndescription: d\ntags:\n  - a\n',
    'a list at the key indentation': 'name: a\ndescription: d\ntags:\n- a\n',
    'a mapping under name': 'name:\n  first: a\ndescription: d\n',
    'a null name': 'name: ~\ndescription: d\n',
    'an empty name': 'name:\ndescription: d\n',
    'an empty quoted description': 'name: a\ndescription: ""\n',
    'no name': 'description: d\n',
    'no description': 'name: a\n',
    'a duplicate key': 'name: a\ndescription: d\nname: b\n',
    'a duplicate nested key': 'name: a\ndescription: d\nmetadata:\n  x: 1\n  x: 2\n',
    'a value holding ": "': 'name: a\ndescription: Use when: asked\n',
    'a value ending in ":"': 'name: a\ndescription: Use when:\n',
    'disable-model-invocation, even false': 'name: a\ndescription: d\ndisable-model-invocation: false\n',
    'metadata.internal': 'name: a\ndescription: d\nmetadata:\n  internal: false\n',
    'two nesting levels': 'name: a\ndescription: d\nmetadata:\n  a:\n    b: c\n',
    'uneven nested indentation': 'name: a\ndescription: d\nmetadata:\n  a: 1\n   b: 2\n',
    'an indented top-level line': 'name: a\n description: d\n',
    'a tab': 'name: a\ndescription: d\tx\n',
    'a carriage return': 'name: a\r\ndescription: d\n',
    'a key the core schema reads otherwise': 'name: a\ndescription: d\ntrue: x\n',
    'an anchor': 'name: &n a\ndescription: d\n',
    'a hexadecimal number': 'name: a\ndescription: d\nversion: 0x1F\n',
  };
  for (const [shape, yaml] of Object.entries(refused)) {
    it(`leaves ${shape} to the full parse`, () => {
      expect(readListingFields(yaml)).toBeUndefined();
    });
  }

  it('leaves a frontmatter of many keys to the full parse, in time linear in its length', () => {
    const keys = (count: number, indent = '') =>
      Array.from({ length: count }, (_, index) => `${indent}k${index}: v`).join('\n');
    expect(readListingFields(`name: a\ndescription: d\n${keys(62)}\n`)).toEqual({ name: 'a', description: 'd' });
    expect(readListingFields(`name: a\ndescription: d\n${keys(63)}\n`)).toBeUndefined();
    expect(readListingFields(`name: a\ndescription: d\nmetadata:\n${keys(61, '  ')}\n`)).toEqual({
      name: 'a',
      description: 'd',
    });
    expect(readListingFields(`name: a\ndescription: d\nmetadata:\n${keys(62, '  ')}\n`)).toBeUndefined();
    // 40,000 keys (380 KB) compared each with every other took seconds.
    const started = performance.now();
    for (const indent of ['', '  '])
      readListingFields(`name: a\ndescription: d\n${indent === '' ? '' : 'metadata:\n'}${keys(40_000, indent)}\n`);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('agrees with the full parse on generated frontmatter', () => {
    const key = fc.constantFrom('name', 'description', 'license', 'metadata', 'version', 'x_y', 'K', 'a-1', 'true');
    const word = fc.constantFrom(
      'a',
      'pdf-tools',
      'Use',
      'when',
      'the user asks',
      'C#',
      'a:b',
      'é',
      '\u{1F600}',
      '1',
      '1.10',
      '007',
      'true',
      'null',
      '~',
      '#',
      ':',
      '-',
      "'",
      '"',
      '\\',
      '[x]',
      '|',
      '',
      ' ',
    );
    const text = fc.array(word, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(' '));
    const scalar = fc.oneof(
      { weight: 4, arbitrary: text },
      { weight: 1, arbitrary: text.map((value) => `'${value}'`) },
      { weight: 1, arbitrary: text.map((value) => `"${value}"`) },
    );
    const nestedIndent = fc.constantFrom('  ', '  ', ' ', '   ', '');
    const entry = fc.oneof(
      { weight: 5, arbitrary: fc.tuple(key, scalar).map(([name, value]) => [`${name}: ${value}`]) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(key, fc.array(fc.tuple(nestedIndent, key, scalar), { minLength: 0, maxLength: 3 }))
          .map(([name, items]) => [`${name}:`, ...items.map(([indent, item, value]) => `${indent}${item}: ${value}`)]),
      },
      { weight: 1, arbitrary: fc.constantFrom([''], ['# c'], ['  - a'], ['tags: [a]'], ['x: |'], ['  y']) },
    );
    let accepted = 0;
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 5 }), text, text, (entries, name, description) => {
        const lines = [`name: ${name}`, `description: ${description}`, ...entries.flat()];
        if (expectAgreement(skill(lines.join('\n')))) accepted += 1;
      }),
      { numRuns: 3000 },
    );
    // The generator must reach the accepted shapes, or the agreement above says nothing.
    expect(accepted).toBeGreaterThan(150);
  });

  it.runIf(hasCorpus)(
    'agrees with the full parse on every SKILL.md of the corpus, and reads most of them',
    async () => {
      const root = corpusRoot;
      const files = (await readdir(root, { recursive: true }))
        .filter((path) => basename(path) === 'SKILL.md')
        .map((path) => join(root, path));
      let accepted = 0;
      for (const file of files) {
        if (expectAgreement(await readFile(file, 'utf8'), basename(dirname(file)))) accepted += 1;
      }
      expect(files.length).toBeGreaterThan(600);
      // 560 of the 636 have the plainest shape; this is what a listing saves on.
      expect(accepted / files.length).toBeGreaterThan(0.8);
    },
  );
});
