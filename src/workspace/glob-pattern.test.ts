import { describe, expect, it } from 'vitest';
import { WorkspacePathError } from './errors.js';
import { compileGlob } from './glob-pattern.js';

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
  ])('%s against %s is %s', (pattern, candidate, expected) => {
    expect(compileGlob(pattern).matches(candidate)).toBe(expected);
  });

  it('reports the static base and depth bound', () => {
    expect(compileGlob('out/charts/*.png')).toMatchObject({ base: 'out/charts', hasWildcards: true, maxDepth: 1 });
    expect(compileGlob('out/**')).toMatchObject({ base: 'out', maxDepth: Infinity });
    expect(compileGlob('out/fib.txt')).toMatchObject({ base: 'out/fib.txt', hasWildcards: false });
  });

  it('names a pattern that cannot be compiled instead of throwing a raw SyntaxError', () => {
    expect(() => compileGlob('out/[z-a]')).toThrow(WorkspacePathError);
    expect(() => compileGlob('out/[z-a]')).toThrow(/"out\/\[z-a\]": not a valid glob/);
  });
});
