/**
 * The fast frontmatter reader must give exactly what the YAML library gives. Each case runs
 * parseSkillMarkdown (fast reader when it accepts the text) and parseSkillMarkdownWithFullYaml
 * (always the library) and asserts the same ParsedSkill, or the same SkillParseError, from both:
 * over every SKILL.md of the corpus, hand-written edge cases, and generated frontmatter. Each case
 * also checks the reader's fields-only mode, which lets a listing skip building the mapping: when
 * it accepts a text, the full read accepts it with the same name and description, and the deferred
 * parse of a listing, completed, is the full parse.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusRoot, hasCorpus } from '../../test/support/corpus.js';
import { SkillParseError } from './errors.js';
import { normalizeSkillName } from './frontmatter-rules.js';
import { modelInvocableFromFrontmatter } from './model-invocation.js';
import { parseSkillMarkdown, parseSkillMarkdownWithFullYaml } from './parse-skill.js';
import { parseSkillMarkdownDeferringBody } from './parse-skill-deferring-body.js';
import { readSimpleFrontmatter, readSimpleFrontmatterFields } from './read-simple-frontmatter.js';
import { splitFrontmatter } from './split-frontmatter.js';

type Outcome = { parsed: unknown } | { error: string; line: number | undefined };

function outcome(parse: () => unknown): Outcome {
  try {
    return { parsed: parse() };
  } catch (error) {
    if (error instanceof SkillParseError) return { error: error.message, line: error.line };
    throw error;
  }
}

function expectSameBothWays(text: string | Uint8Array, folderName = 'a'): void {
  const options = { file: '/skills/a/SKILL.md', folderName };
  const full = outcome(() => parseSkillMarkdownWithFullYaml(text, options));
  const fast = outcome(() => parseSkillMarkdown(text, options));
  expect(fast, typeof text === 'string' ? text : undefined).toStrictEqual(full);
  expectFieldsAgreement(typeof text === 'string' ? text : Buffer.from(text).toString('utf8'), folderName);
}

/**
 * When the fields-only mode accepts the frontmatter of `file`: the full read accepts it too, with
 * the same written name and description; the parse lists the skill under them, as visible to the
 * model as its mapping says; and the deferred parse, completed from bytes given again (the first
 * ones overwritten meanwhile), is the full parse. Returns whether it accepted.
 */
function expectFieldsAgreement(file: string, folderName = 'demo'): boolean {
  const split = splitFrontmatter(file);
  if (split.kind !== 'closed') return false;
  const fields = readSimpleFrontmatterFields(split.yaml);
  if (fields === undefined) return false;
  const simple = readSimpleFrontmatter(split.yaml, split.yamlStartLine);
  expect(simple?.kind, file).toBe('read');
  if (simple?.kind !== 'read') return true;
  expect([simple.written.name, simple.written.description], file).toEqual([fields.name, fields.description]);
  const options = { file: '/skills/demo/SKILL.md', folderName };
  const full = parseSkillMarkdown(file, options);
  expect([full.name, full.description], file).toEqual([normalizeSkillName(fields.name), fields.description.trim()]);
  expect(fields.modelInvocable, file).toBe(modelInvocableFromFrontmatter(full.frontmatter));
  const bytes = Buffer.from(file);
  const deferred = outcome(() => {
    const scratch = Buffer.from(bytes);
    const parse = parseSkillMarkdownDeferringBody(scratch, options);
    scratch.fill(0x2d);
    expect([parse.name, parse.description, parse.modelInvocable], file).toEqual([
      full.name,
      full.description,
      fields.modelInvocable,
    ]);
    return structuredClone(parse.complete(bytes));
  });
  expect(deferred, file).toEqual({ parsed: structuredClone(full) });
  return true;
}

/** What the fast reader makes of a frontmatter: 'read', 'colon-values' or 'refused'. */
function fastReading(frontmatter: string): string {
  return readSimpleFrontmatter(`${frontmatter}\n`)?.kind ?? 'refused';
}

const skill = (frontmatter: string): string => `---\n${frontmatter}\n---\n# Body\n`;

describe('the fast frontmatter reader', () => {
  it.runIf(hasCorpus)(
    'gives the YAML library result for every SKILL.md of the corpus, and reads nearly all of them itself',
    async () => {
      const entries = await readdir(corpusRoot, { recursive: true, withFileTypes: true });
      const files = entries
        .filter((entry) => entry.isFile() && (entry.name === 'SKILL.md' || entry.name === 'skill.md'))
        .map((entry) => join(entry.parentPath, entry.name));
      expect(files.length).toBeGreaterThan(600);
      let readFast = 0;
      let readFieldsOnly = 0;
      for (const file of files) {
        const bytes = await readFile(file);
        expectSameBothWays(bytes, basename(dirname(file)));
        const split = splitFrontmatter(bytes.toString('utf8'));
        if (split.kind === 'closed' && readSimpleFrontmatter(split.yaml) !== undefined) readFast += 1;
        if (expectFieldsAgreement(bytes.toString('utf8'), basename(dirname(file)))) readFieldsOnly += 1;
      }
      // 636 of 636 when written (630 before flow lists, lists of mappings and deeper nesting were read).
      expect(readFast).toBeGreaterThan(files.length * 0.95);
      // What a listing saves on: a frontmatter read fields-only is kept as text, its mapping not built.
      expect(readFieldsOnly).toBeGreaterThan(files.length * 0.9);
    },
  );

  // Each case with what the fast reader is expected to do with it, so the cases exercise both paths.
  const cases: [string, 'read' | 'colon-values' | 'refused'][] = [
    ['name: a\ndescription: plain text, with [brackets] and {braces}: fine', 'colon-values'],
    ['name: a\ndescription: plain text, with [brackets], C# and a:b', 'read'],
    ["name: a\ndescription: 'single ''quoted'' text: with colon # and hash'", 'read'],
    ['name: a\ndescription: "double \\"quoted\\" \\\\ \\/ \\n \\t \\u00e9 text: with colon"', 'read'],
    ['name: a\ndescription: "\\x41 is an escape JSON lacks"', 'refused'],
    ['name: a\ndescription: "\\ud83d\\ude00 as two escapes"', 'refused'],
    ['name: a\ndescription: "unclosed', 'refused'],
    ["name: a\ndescription: 'quoted' then text", 'refused'],
    ['name: a\ndescription: d   \nlicense: MIT   ', 'read'],
    // Unicode spaces belong to a YAML value: only the space (and the tab, refused) is trimmed.
    ['name: a\ndescription: d\u00a0\nlicense: \u3000MIT', 'read'],
    ['name: a\ndescription: "d"\u3000', 'refused'],
    ['name: a\ndescription: [x]\u2003\nlicense: MIT', 'refused'],
    ['name: a\ndescription: d\nallowed-tools:\n  - Read\u00a0\nmetadata:\n  author: \u2002me', 'read'],
    ['name: a\ndescription: d # a comment', 'refused'],
    ['# leading comment\nname: a\n\n# between\ndescription: d\n', 'read'],
    ['name: 2048\ndescription: 1.10\nlicense: 007\ncompatibility: 1.0', 'read'],
    ['name: a\ndescription: d\nversion: 1e3', 'refused'],
    ['name: a\ndescription: d\nversion: -1', 'refused'],
    ['name: a\ndescription: d\nversion: 0x1F', 'refused'],
    ['name: a\ndescription: d\nversion: .5', 'refused'],
    ['name: a\ndescription: d\nversion: 1.2.3', 'read'],
    ['name: a\ndescription: d\nversion: 12345678901234567890', 'refused'],
    ['name: True\ndescription: FALSE\ncompatibility: true\ndisable-model-invocation: false', 'read'],
    ['name: ~\ndescription: d\nlicense: null\ncompatibility: NULL', 'read'],
    ['name:\ndescription: d\ncompatibility:', 'read'],
    ['name: a\ndescription: d\nmetadata:', 'read'],
    [
      'name: a\ndescription: d\nmetadata:\n  author: x\n  version: 1.10\n  internal: true\n  empty:\n  quoted: "q"',
      'read',
    ],
    ['name: a\ndescription: d\nmetadata:\n    author: x\n    version: "1.0"\nlicense: MIT', 'read'],
    ['name: a\ndescription: d\nmetadata:\n  author: x\n   version: "1.0"', 'refused'],
    ['name: a\ndescription: d\nmetadata:\n  author: x\n# a comment at the left margin\n  version: "1.0"', 'read'],
    ['name: a\ndescription: d\nmetadata:\n  nested:\n    deeper: x', 'read'],
    ['name: a\ndescription: d\nmetadata:\n  author: x\n  author: y', 'refused'],
    ['name: a\ndescription: d\nmetadata:\n  author: Jane: Doe', 'colon-values'],
    ['name: a\ndescription: d\nmetadata: text', 'read'],
    ['name: a\ndescription: d\nallowed-tools:\n  - Read\n  - "Bash(git:*)"\n  - 3', 'read'],
    ['name: a\ndescription: d\nallowed-tools:\n- Read\n- Grep\nlicense: MIT', 'read'],
    ['name: a\ndescription: d\nallowed-tools:\n  - Read\n    - Grep', 'refused'],
    ['name: a\ndescription: d\nallowed-tools:\n  - key: value', 'read'],
    ['name: a\ndescription: d\nallowed-tools:\n  -', 'refused'],
    ['name: a\ndescription: d\nallowed-tools: [Read, Grep]', 'read'],
    ['name: a\ndescription: d\nmetadata:\n  tags:\n    - x', 'read'],
    // Deeper nesting, lists of mappings and flow lists (the shapes the corpus's last six skills use).
    ['name: a\ndescription: d\nmetadata:\n  tags:\n  - x\n  - y\n  author: z', 'read'],
    ['name: a\ndescription: d\nmetadata:\n  tags:\n  - x\n   y', 'refused'],
    ['name: a\ndescription: d\nmetadata:\n  tags:\n    - x\n  - y', 'refused'],
    ['name: a\ndescription: d\nmetadata:\n  tags:\n    - x\n    y: z', 'refused'],
    [
      'name: a\ndescription: d\nauthors:\n  - name: A\n    github: b\n  - name: "C"\n    github: d\nlicense: MIT',
      'read',
    ],
    ['name: a\ndescription: d\nauthors:\n- name: A\n  github: b\nlicense: MIT', 'read'],
    ['name: a\ndescription: d\nauthors:\n  - name: A\n\n    # a comment\n    github: b', 'read'],
    ['name: a\ndescription: d\nauthors:\n  - name: A\n     github: b', 'refused'],
    ['name: a\ndescription: d\nauthors:\n  - name: A\n   github: b', 'refused'],
    ['name: a\ndescription: d\nauthors:\n  - name: A\n    github:', 'refused'],
    ['name: a\ndescription: d\nauthors:\n  - name:\n      first: A', 'refused'],
    ['name: a\ndescription: d\nauthors:\n  - name: A\n    notes: |\n      x', 'refused'],
    ['name: a\ndescription: d\nauthors:\n  -   name: A', 'refused'],
    ['name: a\ndescription: d\nauthors:\n  - name: Use when: x', 'refused'],
    ['name: a\ndescription: d\nauthors:\n  - Use when: x', 'refused'],
    ['name: a\ndescription: d\nauthors:\n  - name: A\n  - plain item\n  - 3\n  - a:b', 'read'],
    ['name: a\ndescription: d\nauthors:\n  - name: A\n    name: B', 'refused'],
    ['name: a\ndescription: d\nauthors:\n  - name: A\n    tags: [x, "y"]', 'read'],
    ['name: a\ndescription: d\nauthors:\n  - name: A\n    - b', 'refused'],
    ['name: a\ndescription: d\nauthors:\n  - - a', 'refused'],
    ['name: a\ndescription: d\nauthors:\n  - [a, b]', 'refused'],
    ['name: a\ndescription: d\nmetadata:\n  a:\n    b:\n      c:\n        d: 1.10', 'read'],
    ['name: a\ndescription: d\nmetadata:\n a:\n  b:\n   c:\n    d:\n     e:\n      f:\n       g: 1', 'refused'],
    [
      'name: a\ndescription: d\nmetadata:\n  requires:\n    bins:\n      - uv\n    env:\n      - KEY\n  primary: KEY',
      'read',
    ],
    ['name: a\ndescription: d\nmetadata:\n  a:\n    b: 1\n   c: 2', 'refused'],
    ['name: a\ndescription: d\nmetadata:\n  a:\n    b: 1\n      c: 2', 'refused'],
    ['name: a\ndescription: d\nmetadata:\n  a:\n    b: 1\n  c: Use when: x', 'colon-values'],
    ['name: a\ndescription: d\nmetadata:\n  a:\n    b: Use when: x', 'colon-values'],
    ['name: a\ndescription: d\nmetadata:\n  a:\n    b: x\n    b: y', 'refused'],
    [
      'name: a\ndescription: d\nmetadata:\n  notes:\n    text: |\n      a\n      b\n    more: >-\n      c\n  x: 1',
      'read',
    ],
    ['name: a\ndescription: d\nmetadata:\n  a:\n    true: x', 'refused'],
    ['name: a\ndescription: d\nmetadata:\n  a:\n    constructor: x', 'read'],
    ['name: a\ndescription: d\nmetadata:\n  a:\n    __proto__: x', 'refused'],
    [
      'name: a\ndescription: d\nmetadata:\n  keywords: ["a b", "c, d", \'e\'\'f\']\n  versions: [1.10, "2", true, null, 1.2.3]',
      'read',
    ],
    ['name: a\ndescription: d\nmetadata:\n  list:\n    - 1.10\n    - true\n    - ~\n  map:\n    v: 1.10', 'read'],
    ['name: a\ndescription: d\ntools: [\'A B/c\', "d\\"e", plain item, 1, true, null, 1.5, x (y), a+b]', 'read'],
    ['name: a\ndescription: d\ntools: []', 'read'],
    ['name: a\ndescription: d\ntools: [ ]', 'read'],
    ['name: a\ndescription: d\ntools: [ a ,b ]', 'read'],
    ['name: a\ndescription: d\ntools: [a, b,]', 'refused'],
    ['name: a\ndescription: d\ntools: [a,, b]', 'refused'],
    ['name: a\ndescription: d\ntools: [,a]', 'refused'],
    ['name: a\ndescription: d\ntools: [a', 'refused'],
    ['name: a\ndescription: d\ntools: [a,\n  b]', 'refused'],
    ['name: a\ndescription: d\ntools: [a] x', 'refused'],
    ['name: a\ndescription: d\ntools: [a] # c', 'refused'],
    ['name: a\ndescription: d\ntools: [a: b]', 'refused'],
    ['name: a\ndescription: d\ntools: ["a": b]', 'refused'],
    ['name: a\ndescription: d\ntools: [a:b]', 'refused'],
    ['name: a\ndescription: d\ntools: [[a]]', 'refused'],
    ['name: a\ndescription: d\ntools: [{a: b}]', 'refused'],
    ['name: a\ndescription: d\ntools: [-a]', 'refused'],
    ['name: a\ndescription: d\ntools: [a #b]', 'refused'],
    ["name: a\ndescription: d\ntools: ['a'b]", 'refused'],
    ['name: a\ndescription: d\ntools: [1e3]', 'refused'],
    ['name: a\ndescription: d\ntools: [~]', 'refused'],
    ['name: a\ndescription: d\ntools: [&x a]', 'refused'],
    ['name: a\ndescription: d\ntools: ["\\x41"]', 'refused'],
    ['name: [a, b]\ndescription: d', 'read'],
    ['name: a\ndescription: [a, b]', 'read'],
    ['name: a\ndescription: d\nmetadata: [a, b]', 'read'],
    ['name: a\ndescription: d\nmetadata:\n  - a', 'read'],
    [
      'name: a\ndescription: >\n  Folded one.\n  Folded two.\n\n  After a blank.\n\n\n  After two.\nlicense: MIT',
      'read',
    ],
    ["name: a\ndescription: >-\n  Folded: with # and 'quotes'\n  two.\n\nlicense: MIT", 'read'],
    ['name: a\ndescription: |\n  Line one.\n    more indented\n  # not a comment\n\nlicense: MIT', 'read'],
    ['name: a\ndescription: |-\n  Keep\n  lines\n', 'read'],
    ['name: a\ndescription: >\n  Folded\n    more indented\n  back', 'refused'],
    ['name: a\ndescription: |\n\n  leading blank', 'refused'],
    ['name: a\ndescription: |\n  text\n  \n  line of spaces', 'refused'],
    ['name: a\ndescription: |+\n  keep\n\n', 'refused'],
    ['name: a\ndescription: |2\n    indented', 'refused'],
    ['name: a\ndescription: |\nlicense: MIT', 'refused'],
    ['name: a\ndescription: |\n    four\n  two', 'refused'],
    ['name: a\ndescription: d\nmetadata:\n  notes: |\n    a note\n  author: x', 'read'],
    ['name: a\ndescription: Use when: the user asks\nlicense: MIT', 'colon-values'],
    ['name: a\ndescription: ends with a colon:\nlicense: MIT', 'colon-values'],
    ['name: a\ndescription: Use when: the user asks\n  about PDFs', 'refused'],
    ['name: a\ndescription: d\ndescription: e', 'refused'],
    ['name: a\ndescription: d\n__proto__: x', 'refused'],
    ['name: a\ndescription: d\ntrue: x', 'refused'],
    ['name: a\ndescription: d\nconstructor: x\ntoString: y', 'read'],
    ['name: a\ndescription: d\n"quoted key": x', 'refused'],
    ['name: a\ndescription:\td', 'refused'],
    ['name: a\ndescription: d\u0085e', 'refused'],
    ['name: a\ndescription: caf\u00e9 \u{1F600} \u6280\u80fd', 'read'],
    ['name: a\ndescription: -not a list', 'refused'],
    ['name: a\ndescription: d\nkey:value', 'refused'],
    ['name: a\ndescription: d\n  indented: key', 'refused'],
    ['name: a\ndescription: *alias', 'refused'],
    ['name: a\ndescription: !!str tagged', 'refused'],
    ['name: a\ndescription: ""', 'read'],
    ["name: a\ndescription: '   '", 'read'],
    ['name: a', 'read'],
    ['', 'read'],
    ['# only a comment', 'read'],
    ['- a\n- b', 'refused'],
    ['just a scalar', 'refused'],
    ['name: a\ndescription: d\n...', 'refused'],
  ];

  it.each(cases)('%j: %s, same result as the YAML library', (frontmatter, expectedReading) => {
    expect(fastReading(frontmatter)).toBe(expectedReading);
    expectSameBothWays(skill(frontmatter));
    expectSameBothWays(skill(frontmatter), 'folder');
  });

  it('gives the YAML library result for generated frontmatter', () => {
    const keys = fc.constantFrom(
      'name',
      'description',
      'license',
      'compatibility',
      'metadata',
      'allowed-tools',
      'version',
      'x_y',
      'K',
      'true',
      'a b',
      '__proto__',
    );
    const plainWords = fc.constantFrom(
      'a',
      'pdf-tools',
      'Use',
      'when',
      'Use when:',
      'the user asks',
      'C#',
      'a:b',
      'é',
      '\u{1F600}',
      '1',
      '1.10',
      '007',
      'true',
      'False',
      'null',
      '~',
    );
    const oddWords = fc.constantFrom(
      '#',
      ' #',
      ':',
      ': ',
      '-',
      '- ',
      '[x]',
      '{y}',
      ',',
      "'",
      "''",
      '"',
      '\\',
      '\\n',
      '\\u00e9',
      '-1',
      '1e3',
      '',
      ' ',
      '|',
      '>',
      '&a',
      '*a',
      '!',
      '%',
      '@',
      '`',
      '?',
      '\t',
      '...',
      '---',
    );
    const word = fc.oneof({ weight: 5, arbitrary: plainWords }, { weight: 1, arbitrary: oddWords });
    const text = fc.array(word, { minLength: 1, maxLength: 5 }).map((parts) => parts.join(' '));
    const scalar = fc.oneof(
      { weight: 3, arbitrary: text },
      { weight: 1, arbitrary: fc.tuple(text, text).map(([before, after]) => `${before}: ${after}`) },
      { weight: 1, arbitrary: text.map((value) => `'${value}'`) },
      { weight: 1, arbitrary: text.map((value) => `"${value}"`) },
    );
    const indent = fc.constantFrom('', ' ', '  ', '    ');
    // Mostly well-formed keys and values for the nested shapes below, so they are read often
    // enough, not only refused for an odd word somewhere.
    const tameKeys = fc.oneof(
      {
        weight: 12,
        arbitrary: fc.constantFrom('metadata', 'authors', 'role', 'tags', 'x_y', 'K', 'a-1', 'b', 'c', 'd'),
      },
      keys,
    );
    // The indentation of a nested line: mostly the one its siblings have, sometimes one off.
    const nestedIndent = fc.constantFrom('  ', '  ', '  ', '  ', '  ', ' ', '   ');
    const tameWords = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.constantFrom('a', 'pdf-tools', 'Use', 'x_y', 'v1.2', '1', '1.10', 'true', 'null', 'a/b', '(c)'),
      },
      { weight: 1, arbitrary: plainWords },
    );
    const tameText = fc.array(tameWords, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(' '));
    const tameScalar = fc.oneof(
      { weight: 8, arbitrary: tameText },
      { weight: 2, arbitrary: tameText.map((value) => `"${value}"`) },
      { weight: 1, arbitrary: scalar },
    );
    // A mapping two levels down, its entries' indentation drawn each (so some are wrong).
    const nestedMapping = fc
      .tuple(
        tameKeys,
        tameKeys,
        indent,
        fc.uniqueArray(fc.tuple(nestedIndent, tameKeys, tameScalar), {
          minLength: 1,
          maxLength: 3,
          selector: ([, key]) => key,
        }),
      )
      .map(([key, inner, spaces, pairs]) => [
        `${key}:`,
        `${spaces}${inner}:`,
        ...pairs.map(([deeper, name, value]) => `${spaces}${deeper}${name}: ${value}`),
      ]);
    // A list of mappings (`- name: x` then `  role: y`), or of scalars, the continuation's indentation drawn.
    const listOfMappings = fc
      .tuple(
        tameKeys,
        indent,
        fc.array(fc.tuple(fc.option(fc.tuple(tameKeys, tameScalar)), tameKeys, tameScalar, nestedIndent), {
          minLength: 1,
          maxLength: 3,
        }),
      )
      .map(([key, spaces, items]) => [
        `${key}:`,
        ...items.flatMap(([second, first, value, gap]) => [
          `${spaces}- ${first}: ${value}`,
          ...(second === null ? [] : [`${spaces}${gap}${second[0]}: ${second[1]}`]),
        ]),
      ]);
    // A flow list on one line, of plain and quoted words and the odd characters.
    const flowList = fc
      .tuple(
        tameKeys,
        fc.array(
          fc.oneof(
            tameText,
            text,
            text.map((value) => `'${value}'`),
            text.map((value) => `"${value}"`),
          ),
          { maxLength: 4 },
        ),
        fc.constantFrom(', ', ',', ' , ', ',  '),
        fc.constantFrom('', ' ', ',', ' # c', ' x'),
      )
      .map(([key, items, separator, after]) => [`${key}: [${items.join(separator)}]${after}`]);
    const entry = fc.oneof(
      { weight: 4, arbitrary: fc.tuple(keys, scalar).map(([key, value]) => [`${key}: ${value}`]) },
      { weight: 1, arbitrary: keys.map((key) => [`${key}:`]) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(keys, indent, fc.array(fc.tuple(keys, scalar), { minLength: 1, maxLength: 3 }))
          .map(([key, spaces, pairs]) => [`${key}:`, ...pairs.map(([inner, value]) => `${spaces}${inner}: ${value}`)]),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(keys, indent, fc.array(scalar, { minLength: 1, maxLength: 3 }))
          .map(([key, spaces, items]) => [`${key}:`, ...items.map((item) => `${spaces}- ${item}`)]),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            keys,
            fc.constantFrom('|', '|-', '>', '>-', '|+', '>2'),
            indent,
            fc.array(fc.oneof(text, fc.constant('')), { minLength: 1, maxLength: 4 }),
          )
          .map(([key, header, spaces, lines]) => [
            `${key}: ${header}`,
            ...lines.map((line) => (line === '' ? '' : `${spaces}${line}`)),
          ]),
      },
      { weight: 1, arbitrary: nestedMapping },
      { weight: 1, arbitrary: listOfMappings },
      { weight: 1, arbitrary: flowList },
      { weight: 1, arbitrary: fc.tuple(indent, text).map(([spaces, value]) => [`${spaces}${value}`]) },
      { weight: 1, arbitrary: fc.tuple(indent, text).map(([spaces, value]) => [`${spaces}# ${value}`]) },
      { weight: 1, arbitrary: fc.constant(['']) },
    );
    const readings = new Map<string, number>();
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), fc.boolean(), (entries, withDescription) => {
        const lines = entries.flat();
        const frontmatter = (withDescription ? ['description: d', ...lines] : lines).join('\n');
        const reading = fastReading(frontmatter);
        readings.set(reading, (readings.get(reading) ?? 0) + 1);
        expectSameBothWays(skill(frontmatter));
      }),
      { numRuns: Number(process.env.SKILLBOX_FRONTMATTER_RUNS ?? 1500) },
    );
    // The generator must reach all three outcomes often enough for the comparison to mean something.
    // Typical counts in 1,500 runs: about 400 read, 1,050 refused, 20-40 colon values (it failed
    // once at "more than 20"); the bounds sit far enough below those to hold for any seed.
    expect(readings.get('read')).toBeGreaterThan(200);
    expect(readings.get('colon-values')).toBeGreaterThan(8);
    expect(readings.get('refused')).toBeGreaterThan(200);

    // The nested shapes alone (mappings two levels down, lists of mappings, flow lists), so that
    // many of them are read and not only refused for an odd entry beside them.
    const nestedReadings = new Map<string, number>();
    fc.assert(
      fc.property(
        // Distinct top-level keys: a duplicate is refused, and that is tested above.
        fc.uniqueArray(fc.oneof(nestedMapping, listOfMappings, flowList), {
          minLength: 1,
          maxLength: 3,
          selector: (lines) => lines[0]?.split(':')[0],
        }),
        (entries) => {
          const frontmatter = ['name: a', 'description: d', ...entries.flat()].join('\n');
          const reading = fastReading(frontmatter);
          nestedReadings.set(reading, (nestedReadings.get(reading) ?? 0) + 1);
          expectSameBothWays(skill(frontmatter));
        },
      ),
      { numRuns: Number(process.env.SKILLBOX_FRONTMATTER_RUNS ?? 1500) },
    );
    expect(nestedReadings.get('read')).toBeGreaterThan(200);
    expect(nestedReadings.get('refused')).toBeGreaterThan(200);
  });
});

describe('the fast reader in fields-only mode', () => {
  it('reads name and description as written, leaving trimming and normalizing to the parse', () => {
    const visible = { modelInvocable: undefined };
    expect(readSimpleFrontmatterFields('name: pdf-tools\ndescription: Fills PDF forms.\nlicense: MIT\n')).toEqual({
      name: 'pdf-tools',
      description: 'Fills PDF forms.',
      ...visible,
    });
    expect(readSimpleFrontmatterFields('name: \'2048\'\ndescription: "Plays 2048, the game."\n')).toEqual({
      name: '2048',
      description: 'Plays 2048, the game.',
      ...visible,
    });
    // A number is the name as written, as the specification's string fields are read.
    expect(readSimpleFrontmatterFields('name: 2048\ndescription: d\n')).toEqual({
      name: '2048',
      description: 'd',
      ...visible,
    });
    // Scalars are read by the reader's own rules: escapes, a doubled quote, a boolean as written.
    expect(readSimpleFrontmatterFields('name: a\ndescription: "a\\tb"\n')?.description).toBe('a\tb');
    expect(readSimpleFrontmatterFields("name: a\ndescription: 'it''s'\n")?.description).toBe("it's");
    expect(readSimpleFrontmatterFields('name: a\ndescription: true\n')?.description).toBe('true');
    expect(readSimpleFrontmatterFields('name: a\ndescription: |\n  two\n  lines\n')?.description).toBe('two\nlines\n');
    expect(
      readSimpleFrontmatterFields('name: a\ndescription: d\nmetadata:\n  author: me\n  version: 1.10\nversion: 2\n'),
    ).toEqual({ name: 'a', description: 'd', ...visible });
  });

  it('says when the frontmatter hides the skill from the model', () => {
    expect(
      readSimpleFrontmatterFields('name: a\ndescription: d\ndisable-model-invocation: true\n')?.modelInvocable,
    ).toBe(false);
    expect(
      readSimpleFrontmatterFields('name: a\ndescription: d\nmetadata:\n  internal: "true"\n')?.modelInvocable,
    ).toBe(false);
    expect(
      readSimpleFrontmatterFields('name: a\ndescription: d\ndisable-model-invocation: false\n')?.modelInvocable,
    ).toBeUndefined();
    for (const yaml of [
      'name: a\ndescription: d\ndisable-model-invocation: true',
      'name: a\ndescription: d\nmetadata:\n  internal: true',
      'name: a\ndescription: d\nmetadata:\n  internal: false',
    ])
      expect(expectFieldsAgreement(skill(yaml))).toBe(true);
  });

  // Every shape the full read accepts is read fields-only too (one grammar).
  const accepted: Record<string, string> = {
    'a blank line': 'name: a\n\ndescription: d\n',
    'a comment line': 'name: a\n# note\ndescription: d\n',
    'a folded scalar': 'name: a\ndescription: >-\n  d\n',
    'a flow list': 'name: a\ndescription: d\ntags: [a, b]\n',
    'a block list': 'name: a\ndescription: d\ntags:\n  - a\n',
    'a list at the key indentation': 'name: a\ndescription: d\ntags:\n- a\n',
    'two nesting levels': 'name: a\ndescription: d\nmetadata:\n  a:\n    b: c\n',
  };
  for (const [shape, yaml] of Object.entries(accepted)) {
    it(`reads a frontmatter with ${shape}, as the full read does`, () => {
      expect(readSimpleFrontmatterFields(yaml)).toEqual({ name: 'a', description: 'd', modelInvocable: undefined });
      expect(expectFieldsAgreement(skill(yaml.trimEnd()))).toBe(true);
    });
  }

  const refused: Record<string, string> = {
    'a comment after a value': 'name: a # note\ndescription: d\n',
    'a mapping under name': 'name:\n  first: a\ndescription: d\n',
    'a list as description': 'name: a\ndescription: [d]\n',
    'a null name': 'name: ~\ndescription: d\n',
    'an empty name': 'name:\ndescription: d\n',
    'a blank name': "name: ' '\ndescription: d\n",
    'an empty quoted description': 'name: a\ndescription: ""\n',
    'no name': 'description: d\n',
    'no description': 'name: a\n',
    'a duplicate key': 'name: a\ndescription: d\nname: b\n',
    'a duplicate nested key': 'name: a\ndescription: d\nmetadata:\n  x: 1\n  x: 2\n',
    'a value holding ": "': 'name: a\ndescription: Use when: asked\n',
    'a value ending in ":"': 'name: a\ndescription: Use when:\n',
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
      expect(readSimpleFrontmatterFields(yaml)).toBeUndefined();
    });
  }

  it('agrees with the full parse on generated name and description lines', () => {
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
        if (expectFieldsAgreement(`---\n${lines.join('\n')}\n---\n# Body\n\nTools:\n- a\n`)) accepted += 1;
      }),
      { numRuns: 3000 },
    );
    // The generator must reach the accepted shapes, or the agreement above says nothing.
    expect(accepted).toBeGreaterThan(150);
  });

  it('reads a frontmatter of 40,000 keys, top-level and nested', () => {
    const keys = (count: number, indent = '') =>
      Array.from({ length: count }, (_, index) => `${indent}k${index}: v`).join('\n');
    // Once each key was compared with every other (seconds at this size). Tests assert no time:
    // bench/frontmatter-reader.bench.ts measures the reader's speed.
    for (const indent of ['', '  '])
      expect(
        readSimpleFrontmatterFields(
          `name: a\ndescription: d\n${indent === '' ? '' : 'metadata:\n'}${keys(40_000, indent)}\n`,
        ),
      ).toEqual({ name: 'a', description: 'd', modelInvocable: undefined });
  });
});
