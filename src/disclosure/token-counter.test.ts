import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusRoot, hasCorpus } from '../../test/support/corpus.js';
import { countTokens, createTokenCounter, maxEncodedPieceCharacters } from './token-counter.js';
import corpusCounts from './token-counter-corpus-counts.json' with { type: 'json' };

const corpus = corpusRoot;

describe('createTokenCounter', () => {
  it('gives countTokens exactly, for text whose lines meet every kind of junction', () => {
    const counter = createTokenCounter();
    const junctions = [
      'a.\n/b',
      'end.\n\nNext',
      'x \n- y',
      'tab\t\n\tz',
      'crlf\r\nline',
      '…\n<skill>',
      'word\n/path\n',
      '\n\n\n',
      ' \n ',
      'é\n😀\n数据',
      "it's\n'quoted'",
    ];
    for (const text of junctions) expect(counter.count(text), JSON.stringify(text)).toBe(countTokens(text));
    expect(counter.count(junctions)).toBe(countTokens(junctions.join('')));
    expect(counter.count('')).toBe(0);
    expect(counter.count([])).toBe(0);
  });

  it('gives countTokens exactly for random text split into random parts', () => {
    const counter = createTokenCounter();
    const alphabet = fc.constantFrom(
      'a',
      'Z',
      'é',
      '数',
      '😀',
      '1',
      '22',
      ' ',
      '  ',
      '\n',
      '\r\n',
      '\t',
      '/',
      '.',
      '…',
      '<',
      '&',
      "'s",
      '-',
      ':',
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.array(alphabet, { maxLength: 12 }).map((pieces) => pieces.join('')),
          { maxLength: 8 },
        ),
        (parts) => {
          expect(counter.count(parts)).toBe(countTokens(parts.join('')));
          expect(counter.count(parts.join(''))).toBe(countTokens(parts.join('')));
        },
      ),
      { numRuns: 300 },
    );
  });

  it.runIf(hasCorpus)(
    'gives countTokens exactly on real SKILL.md text, counted twice (the second time from memory)',
    () => {
      const text = readFileSync(join(corpus, 'anthropics__skills/skills/skill-creator/SKILL.md'), 'utf8');
      const expected = countTokens(text);
      const counter = createTokenCounter();
      expect(counter.count(text)).toBe(expected);
      expect(counter.count(text.split(/(?<=\n)/))).toBe(expected);
      expect(counter.count(text)).toBe(expected);
    },
  );

  it('stops past a limit with a number above it, and is exact within it', () => {
    const text = 'one line of words\n'.repeat(50);
    const total = countTokens(text);
    const counter = createTokenCounter();
    expect(counter.count(text, 10)).toBeGreaterThan(10);
    expect(counter.count(text, 10)).toBeLessThan(total);
    expect(counter.count(text, total)).toBe(total);
    expect(counter.count(text)).toBe(total);
  });
});

describe('countTokens against the counts of the previous tokenizer', () => {
  // token-counter-corpus-counts.json holds js-tiktoken 1.0.21's o200k_base count of every .md file
  // of the shared corpus (each pre-token encoded whole; none is over 330 characters, so no chunking),
  // made just before skillbox moved to gpt-tokenizer. A count that drifts means the two disagree.
  it.runIf(hasCorpus)('gives identical counts on every .md file of the corpus', { timeout: 120_000 }, () => {
    const expected = corpusCounts as Record<string, number>;
    expect(Object.keys(expected).length).toBeGreaterThan(2000);
    const differing: string[] = [];
    for (const [file, count] of Object.entries(expected)) {
      const actual = countTokens(readFileSync(join(corpus, file), 'utf8'));
      if (actual !== count) differing.push(`${file}: ${actual} instead of ${count}`);
    }
    expect(differing).toEqual([]);
  });

  it('counts special-token text as ordinary text', () => {
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
    expect(countTokens('a <|endoftext|> b')).toBe(countTokens('a <|endof') + countTokens('text|> b'));
  });
});

describe('countTokens on long pieces without spaces', () => {
  it('counts 20,000 repeated letters and 100 KB of minified JSON in linear time, as chunks of at most maxEncodedPieceCharacters', {
    timeout: 15_000,
  }, () => {
    const letters = 'a'.repeat(20_000);
    let chunked = 0;
    for (let start = 0; start < letters.length; start += maxEncodedPieceCharacters)
      chunked += countTokens(letters.slice(start, start + maxEncodedPieceCharacters));
    expect(countTokens(letters)).toBe(chunked);
    const json = JSON.stringify(
      Array.from({ length: 4000 }, (_, index) => ({ id: index, tag: `t${index}`, ok: index % 2 === 0 })),
    );
    expect(json.length).toBeGreaterThan(100_000);
    expect(countTokens(json)).toBeGreaterThan(json.length / 8);
    expect(createTokenCounter().count(letters)).toBe(countTokens(letters));
  });

  it('counts the ordinary text around a long piece exactly', () => {
    const words = 'Extract text and tables from PDF files, fill forms, merge documents.\n'.repeat(20);
    const long = 'x'.repeat(3 * maxEncodedPieceCharacters);
    expect(countTokens(`${words}${long}\n${words}`)).toBe(
      countTokens(words) + countTokens(long) + countTokens(`\n${words}`),
    );
    expect(countTokens(long)).toBeGreaterThan(0);
  });
});

describe('countTokens is at most the UTF-8 byte length', () => {
  // The catalog budget accepts a catalog whose bytes fit without tokenizing it (catalog-budget-search.ts).
  const withinBytes = (text: string) => countTokens(text) <= Buffer.byteLength(text, 'utf8');

  it('on ASCII, CJK, emoji, special-token text, lone surrogates and long runs without spaces', () => {
    const texts = [
      'Extract text and tables from PDF files, fill forms, merge documents.',
      '数据分析和可视化：读取表格，计算统计量，并生成图表。',
      'ёлка résumé — “quoted” … ½',
      '🙂😀👩‍👩‍👧‍👦🏳️‍🌈'.repeat(40),
      '<|endoftext|>',
      'a <|endoftext|> b <|im_start|>system<|im_end|>',
      '<|endoftext|>'.repeat(200),
      '\ud800 lone \udfff surrogates \ud83d',
      'a'.repeat(5 * maxEncodedPieceCharacters + 3),
      '='.repeat(3 * maxEncodedPieceCharacters),
      ' '.repeat(2 * maxEncodedPieceCharacters + 1),
      // A run of emoji past the chunk size: chunks are cut between code points, never inside a pair.
      '😀'.repeat(maxEncodedPieceCharacters + 7),
      `x${'😀'.repeat(maxEncodedPieceCharacters)}`,
      '数'.repeat(3 * maxEncodedPieceCharacters),
      '\r\n\n\t \u00a0\u2028',
    ];
    for (const text of texts) expect(withinBytes(text), JSON.stringify(text.slice(0, 40))).toBe(true);
  });

  it('on every text of the catalog budget fixtures', () => {
    const fixtures = JSON.parse(readFileSync(join(import.meta.dirname, 'catalog-budget-fixtures.json'), 'utf8')) as {
      smallCases: { options: { skills: { name: string; description: string }[] } }[];
    };
    const texts = fixtures.smallCases.flatMap((testCase) =>
      testCase.options.skills.flatMap((skill) => [skill.name, skill.description]),
    );
    const snapshots = join(import.meta.dirname, 'fixtures', 'catalog-budget');
    for (const file of readdirSync(snapshots)) texts.push(readFileSync(join(snapshots, file), 'utf8'));
    expect(texts.length).toBeGreaterThan(100);
    expect(texts.filter((text) => !withinBytes(text))).toEqual([]);
  });

  it('on random text of any code points, spaces and long runs', () => {
    const text = fc
      .array(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 40 }),
          fc.string({ unit: 'grapheme', maxLength: 40 }),
          fc.constantFrom('<|endoftext|>', ' ', '\n', '😀', '数'),
          fc
            .tuple(fc.constantFrom('a', '=', '😀', '数', ' ', 'é'), fc.integer({ min: 1, max: 2500 }))
            .map(([unit, times]) => unit.repeat(times)),
        ),
        { maxLength: 8 },
      )
      .map((pieces) => pieces.join(''));
    fc.assert(fc.property(text, withinBytes), { numRuns: 200 });
  });

  it.runIf(hasCorpus)('on every .md file of the corpus (their counts as recorded)', () => {
    const expected = corpusCounts as Record<string, number>;
    const over = Object.entries(expected).filter(
      ([file, count]) => count > Buffer.byteLength(readFileSync(join(corpus, file), 'utf8'), 'utf8'),
    );
    expect(over).toEqual([]);
  });
});
