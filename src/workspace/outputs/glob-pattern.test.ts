import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { WorkspacePathError } from '../errors.js';
import { compileGlob, escapeGlob } from './glob-pattern.js';

describe('compileGlob', () => {
  it.each([
    ['out/*.txt', 'out/a.txt', true],
    ['out/*.txt', 'out/sub/a.txt', false],
    ['out/**', 'out/a/b/c.bin', true],
    ['out/**/*.png', 'out/x.png', true],
    ['out/**/*.png', 'out/a/b/x.png', true],
    ['**/*.json', 'work/x/y.json', true],
    ['out/?.txt', 'out/ab.txt', false],
    ['out/[ab].txt', 'out/b.txt', true],
    ['out/[!ab].txt', 'out/c.txt', true],
    ['out/[!ab].txt', 'out/a.txt', false],
    ['out/*.{png,jpg}', 'out/p.jpg', true],
    ['out/*', 'out/.hidden', true],
    ['out/a+b(1).txt', 'out/a+b(1).txt', true],
    // What the regex-building matcher silently never matched (issue 10).
    ['out/{a,{b,c}}.txt', 'out/c.txt', true],
    ['out/{a,{b,c}}.txt', 'out/a.txt', true],
    ['out/{x,{a}}', 'out/{a}', true],
    ['out/{a,b/c}.txt', 'out/b/c.txt', true],
    ['out/{a,b/c}.txt', 'out/a.txt', true],
    ['out/{a,b/c}.txt', 'out/b.txt', false],
    ['out/[[:digit:]].txt', 'out/7.txt', true],
    ['out/[[:digit:]].txt', 'out/x.txt', false],
    ['out/[![:digit:]]*', 'out/x1', true],
    ['out/[[:upper:]_]x', 'out/_x', true],
    ['out/a\\*b', 'out/a*b', true],
    ['out/a\\*b', 'out/axb', false],
    ['out/\\[1\\].txt', 'out/[1].txt', true],
    ['out/[]x]', 'out/]', true],
    ['out/[a-]', 'out/-', true],
    ['out/*/', 'out/d/e/f.txt', true],
    ['out/*/', 'out/f.txt', false],
    ['out/{a}', 'out/{a}', true],
    ['out/{a', 'out/{a', true],
    ['out/é?.txt', 'out/éü.txt', true],
  ])('%s against %s is %s', (pattern, candidate, expected) => {
    expect(compileGlob(pattern).matches(candidate)).toBe(expected);
  });

  it('reports the static base and depth bound', () => {
    expect(compileGlob('out/{a,b/c}.txt')).toMatchObject({ base: 'out', hasWildcards: true, maxDepth: 2 });
    expect(compileGlob('out/')).toMatchObject({ base: 'out', hasWildcards: true, maxDepth: Infinity });
    expect(compileGlob('out/a\\*b.txt')).toMatchObject({ base: 'out/a*b.txt', hasWildcards: false });
    expect(compileGlob(escapeGlob('a*b/{c,d}/[e]'))).toMatchObject({ base: 'a*b/{c,d}/[e]', hasWildcards: false });
    expect(compileGlob('out/charts/*.png')).toMatchObject({ base: 'out/charts', hasWildcards: true, maxDepth: 1 });
    expect(compileGlob('out/**')).toMatchObject({ base: 'out', maxDepth: Infinity });
    expect(compileGlob('out/fib.txt')).toMatchObject({ base: 'out/fib.txt', hasWildcards: false });
  });

  it('names a pattern that cannot be compiled instead of throwing a raw SyntaxError', () => {
    expect(() => compileGlob('out/[z-a]')).toThrow(WorkspacePathError);
    expect(() => compileGlob('out/[z-a]')).toThrow(/"out\/\[z-a\]": not a valid glob/);
    expect(() => compileGlob('out/[[:digits:]]')).toThrow(/unknown character class \[:digits:\]/);
  });

  it('expands a run of unclosed braces in linear-ish time instead of trying every split', () => {
    expect(compileGlob(`${'{'.repeat(1000)}`).matches('{'.repeat(1000))).toBe(true);
    expect(compileGlob(`${'{a,'.repeat(300)}`).matches('{a,'.repeat(300))).toBe(true);
  });

  // picomatch (with dot files) is the reference for the syntax both support; names avoid '.' and
  // '..' segments, which no directory listing yields and which picomatch never matches. Negation is
  // written `[^a]`: picomatch reads `[!a]` as a JavaScript class holding `!`, unlike bash. No `.*`:
  // picomatch's `*.*` refuses `a.` (it wants an extension), bash's matches it, as ours does. `**`
  // only as a whole segment: inside one (`**{a,b}`) picomatch sometimes lets it span folders.
  it('agrees with picomatch on random simple patterns and paths', () => {
    const segmentPiece = fc.constantFrom('a', 'b', '.', '*', '?', '[ab]', '[^a]', '[a-b]', '{a,b}', '{a,.b}', '\\*');
    const segment = fc.oneof(
      fc.constant('**'),
      fc
        .array(segmentPiece, { minLength: 1, maxLength: 4 })
        .map((pieces) => pieces.join(''))
        .filter((piece) => piece !== '.' && piece !== '..' && !piece.includes('.*') && !piece.includes('**')),
    );
    // Each {…} piece doubles the alternatives; over 256 the pattern is refused by design (tested on its
    // own), so nine or more braces (512) are not a matching case. One run in a few thousand drew them.
    const pattern = fc
      .array(segment, { minLength: 1, maxLength: 4 })
      .map((segments) => segments.join('/'))
      .filter((glob) => (glob.match(/\{/g)?.length ?? 0) <= 8);
    const name = fc
      .array(fc.constantFrom('a', 'b', '.', '*'), { minLength: 1, maxLength: 4 })
      .map((characters) => characters.join(''))
      .filter((candidate) => candidate !== '.' && candidate !== '..');
    const path = fc.array(name, { minLength: 1, maxLength: 4 }).map((names) => names.join('/'));
    fc.assert(
      fc.property(pattern, path, (glob, candidate) => {
        // A final `**` is what lies below (as `out/**` always meant here); picomatch also matches `out` itself.
        const reference = glob.replace(/(^|\/)\*\*$/, '$1**/*');
        expect(compileGlob(glob).matches(candidate), `${glob} against ${candidate}`).toBe(
          picomatch.isMatch(candidate, reference, { dot: true }),
        );
      }),
      { numRuns: 5000 },
    );
  });
});
