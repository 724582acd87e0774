/**
 * The fast frontmatter reader must give exactly what the YAML library gives. Each case runs
 * parseSkillMarkdown (fast reader when it accepts the text) and parseSkillMarkdownWithFullYaml
 * (always the library) and asserts the same ParsedSkill, or the same SkillParseError, from both:
 * over every SKILL.md of the corpus, hand-written edge cases, and generated frontmatter.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusRoot, hasCorpus } from '../../test/support/corpus.js';
import { SkillParseError } from './errors.js';
import { parseSkillMarkdown, parseSkillMarkdownWithFullYaml } from './parse-skill.js';
import { readSimpleFrontmatter } from './read-simple-frontmatter.js';
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
      for (const file of files) {
        const bytes = await readFile(file);
        expectSameBothWays(bytes, basename(dirname(file)));
        const split = splitFrontmatter(bytes.toString('utf8'));
        if (split.kind === 'closed' && readSimpleFrontmatter(split.yaml) !== undefined) readFast += 1;
      }
      // 630 of 636 when written; the rest hold flow lists, lists of mappings or deeper nesting.
      expect(readFast).toBeGreaterThan(files.length * 0.95);
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
    ['name: a\ndescription: d\nmetadata:\n  nested:\n    deeper: x', 'refused'],
    ['name: a\ndescription: d\nmetadata:\n  author: x\n  author: y', 'refused'],
    ['name: a\ndescription: d\nmetadata:\n  author: Jane: Doe', 'colon-values'],
    ['name: a\ndescription: d\nmetadata: text', 'read'],
    ['name: a\ndescription: d\nallowed-tools:\n  - Read\n  - "Bash(git:*)"\n  - 3', 'read'],
    ['name: a\ndescription: d\nallowed-tools:\n- Read\n- Grep\nlicense: MIT', 'read'],
    ['name: a\ndescription: d\nallowed-tools:\n  - Read\n    - Grep', 'refused'],
    ['name: a\ndescription: d\nallowed-tools:\n  - key: value', 'refused'],
    ['name: a\ndescription: d\nallowed-tools:\n  -', 'refused'],
    ['name: a\ndescription: d\nallowed-tools: [Read, Grep]', 'refused'],
    ['name: a\ndescription: d\nmetadata:\n  tags:\n    - x', 'refused'],
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
    expect(readings.get('read')).toBeGreaterThan(200);
    expect(readings.get('colon-values')).toBeGreaterThan(20);
    expect(readings.get('refused')).toBeGreaterThan(200);
  });
});
