import { WorkspacePathError } from './errors.js';

/**
 * A compiled workspace glob: `*` and `?` stay within one path segment, `**` spans any number of
 * segments (zero included), `[abc]` / `[!a-z]` are classes and `{a,b}` alternatives. Hidden files
 * match like any other (as bash with `dotglob` matches them).
 */
export interface GlobPattern {
  /** The leading segments without wildcards: the folder the walk starts from ('' for the root). */
  base: string;
  /** True when the pattern has wildcards; a plain path names exactly one file or folder. */
  hasWildcards: boolean;
  /** Whether a `/`-separated path relative to the root matches. */
  matches(relativePath: string): boolean;
  /** Upper bound on how deep below `base` a match can be; Infinity with `**`. */
  maxDepth: number;
}

const wildcard = /[*?[{]/;

/** Throws WorkspacePathError naming the pattern when it cannot be compiled (a class like `[z-a]`). */
export function compileGlob(pattern: string): GlobPattern {
  const segments = pattern.split('/').filter((segment) => segment !== '');
  const firstWild = segments.findIndex((segment) => wildcard.test(segment));
  const baseSegments = firstWild === -1 ? segments : segments.slice(0, firstWild);
  const rest = firstWild === -1 ? [] : segments.slice(firstWild);
  let source = '';
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === '**') source += last ? '.+' : '(?:[^/]+/)*';
    else source += segmentSource(segment) + (last ? '' : '/');
  });
  let regex: RegExp;
  try {
    regex = new RegExp(`^${source}$`);
  } catch (error) {
    throw new WorkspacePathError(pattern, `not a valid glob (${(error as Error).message.replace(/^Invalid regular expression: /, '')}); check its [...] classes`);
  }
  return {
    base: baseSegments.join('/'),
    hasWildcards: firstWild !== -1,
    matches: (relativePath) => regex.test(relativePath),
    maxDepth: rest.includes('**') ? Infinity : rest.length,
  };
}

/** One segment without `/`; a `**` inside a segment (`a**b`) acts as `*`. */
function segmentSource(segment: string): string {
  let source = '';
  for (let index = 0; index < segment.length; index += 1) {
    const character = segment[index] as string;
    if (character === '*') {
      source += '[^/]*';
      while (segment[index + 1] === '*') index += 1;
    } else if (character === '?') {
      source += '[^/]';
    } else if (character === '[') {
      const close = segment.indexOf(']', index + 2);
      if (close === -1) {
        source += '\\[';
        continue;
      }
      let body = segment.slice(index + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      source += `[${negated ? '^/' : ''}${body.replace(/\\/g, '\\\\').replace(/\^/g, '\\^')}]`;
      index = close;
    } else if (character === '{') {
      const close = segment.indexOf('}', index);
      if (close === -1) {
        source += '\\{';
        continue;
      }
      const options = segment.slice(index + 1, close).split(',');
      source += `(?:${options.map((option) => segmentSource(option)).join('|')})`;
      index = close;
    } else {
      source += character.replace(/[.+^$()|\\\]]/g, '\\$&');
    }
  }
  return source;
}
