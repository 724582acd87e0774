const sectionStart = /^[ \t]*tools:[ \t]*$/im;

const lowercaseTools = [0x74, 0x6f, 0x6f, 0x6c, 0x73];

/**
 * Whether some `:` follows `tools` in any ASCII case: every section line holds that, and finding
 * colons with indexOf is several times quicker than the multi-line, case-blind regex over a long
 * body. (Without the `u` flag the regex folds no non-ASCII letter onto ASCII, so ASCII is enough.)
 */
function holdsToolsColon(body: string): boolean {
  for (let colon = body.indexOf(':', 5); colon !== -1; colon = body.indexOf(':', colon + 1)) {
    let matches = true;
    for (let offset = 0; offset < 5 && matches; offset += 1) {
      // `| 0x20` lowercases an ASCII letter and maps nothing else onto one.
      matches = (body.charCodeAt(colon - 5 + offset) | 0x20) === lowercaseTools[offset];
    }
    if (matches) return true;
  }
  return false;
}

/** Drops a trailing ` # comment`, so `- get_weather  # current only` names `get_weather`. */
function withoutComment(item: string): string {
  const comment = item.search(/[ \t]#/);
  return (comment === -1 ? item : item.slice(0, comment)).trim();
}

/** Length of a run of three or more fence characters (backticks or tildes) at `start`, else 0. */
function fenceLength(text: string, start: number, end: number): number {
  const marker = text.charCodeAt(start);
  if (marker !== 0x60 && marker !== 0x7e) return 0;
  let index = start;
  while (index < end && text.charCodeAt(index) === marker) index += 1;
  return index - start >= 3 ? index - start : 0;
}

/**
 * Reads the body's `Tools:` section (docs/skill-format.md): a line that is `Tools:` in any
 * case starts it, `- name` items follow (case kept), blank lines and `#` lines are skipped, and the
 * first other line ends it. Several sections add up; a name listed twice is kept once. Lines inside
 * fenced code blocks are ignored, so a SKILL.md quoted as an example does not declare tools.
 */
export function parseToolsSection(body: string): string[] {
  // Most bodies have no section; linear scans decide that without splitting lines.
  if (!holdsToolsColon(body) || !sectionStart.test(body)) return [];
  const text = body.includes('\r') ? body.replace(/\r\n?/g, '\n') : body;
  const tools: string[] = [];
  const seen = new Set<string>();
  // Inside a fence: its marker character and length; a closing fence is at least as long.
  let fenceMarker = 0;
  let fenceSize = 0;
  let collecting = false;
  for (let lineStart = 0; lineStart <= text.length; ) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    let first = lineStart;
    while (first < lineEnd && (text.charCodeAt(first) === 0x20 || text.charCodeAt(first) === 0x09)) first += 1;
    const code = first < lineEnd ? text.charCodeAt(first) : -1;
    const fence = fenceLength(text, first, lineEnd);
    if (fenceSize > 0) {
      if (code === fenceMarker && fence >= fenceSize && text.slice(first + fence, lineEnd).trim() === '') fenceSize = 0;
    } else if (fence > 0) {
      fenceMarker = code;
      fenceSize = fence;
      collecting = false;
    } else if (
      (code === 0x74 || code === 0x54) &&
      lineEnd - first <= 64 &&
      text.slice(first, lineEnd).trimEnd().toLowerCase() === 'tools:'
    ) {
      collecting = true;
    } else if (collecting && code !== -1 && code !== 0x23 /* # */) {
      if (code !== 0x2d /* - */) {
        collecting = false;
      } else {
        const name = withoutComment(text.slice(first + 1, lineEnd).trim());
        if (name !== '' && !name.startsWith('#') && !seen.has(name)) {
          seen.add(name);
          tools.push(name);
        }
      }
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  return tools;
}
