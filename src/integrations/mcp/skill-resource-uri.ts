/**
 * The `skill://<name>/<path>` URIs under which the server publishes each skill's files. Segments
 * are percent-encoded, so a file name with a space or `#` is still one unambiguous URI, and
 * parsing is done here by hand rather than with `new URL`, which would resolve `..` segments and
 * turn a request for `skill://a/../b/SKILL.md` into a read of another skill.
 */

const scheme = 'skill://';

/** The URI of a file (or, with path `''`, the root directory) of a skill. */
export function skillResourceUri(name: string, path: string): string {
  const segments = path === '' ? [] : path.split('/');
  return [scheme + encodeURIComponent(name), ...segments.map(encodeURIComponent)].join('/');
}

/** The URI of a skill's SKILL.md. */
export function skillMarkdownUri(name: string): string {
  return skillResourceUri(name, 'SKILL.md');
}

/** A parsed skill URI: the skill's name and the `/`-separated path inside it (`''` for the skill's root). */
export interface ParsedSkillUri {
  name: string;
  path: string;
}

/**
 * The skill name and path a `skill://` URI names, or a reason why it names none: another scheme,
 * an empty, `.` or `..` segment, a query or fragment, or an escape that does not decode.
 */
export function parseSkillUri(uri: string): ParsedSkillUri | { problem: string } {
  if (!uri.startsWith(scheme)) return { problem: 'is not a skill:// URI' };
  const rest = uri.slice(scheme.length);
  if (/[?#]/.test(rest)) return { problem: 'has a query or fragment, which skill URIs never have' };
  const segments = rest.split('/');
  if (segments.length > 1 && segments.at(-1) === '') segments.pop();
  let decoded: string[];
  try {
    decoded = segments.map((segment) => decodeURIComponent(segment));
  } catch {
    return { problem: 'holds a percent escape that does not decode' };
  }
  if (decoded.some((segment) => segment === '' || segment === '.' || segment === '..' || segment.includes('/')))
    return { problem: 'has an empty, "." or ".." segment' };
  const [name = '', ...path] = decoded;
  return { name, path: path.join('/') };
}
