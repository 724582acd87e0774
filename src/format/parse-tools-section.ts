const sectionStart = /^[ \t]*tools:[ \t]*$/im;
const fenceOpener = /^(`{3,}|~{3,})/;

/** Drops a trailing ` # comment`, so `- get_weather  # current only` names `get_weather`. */
function withoutComment(item: string): string {
  const comment = item.search(/[ \t]#/);
  return (comment === -1 ? item : item.slice(0, comment)).trim();
}

/**
 * Reads the body's `Tools:` section (the Python seed's convention): a line that is `Tools:` in any
 * case starts it, `- name` items follow (case kept), blank lines and `#` lines are skipped, and the
 * first other line ends it. Several sections add up; a name listed twice is kept once. Lines inside
 * fenced code blocks are ignored, so a SKILL.md quoted as an example does not declare tools.
 */
export function parseToolsSection(body: string): string[] {
  // Most bodies have no section; one linear scan decides that without splitting lines.
  if (!sectionStart.test(body)) return [];
  const tools: string[] = [];
  const seen = new Set<string>();
  let fence: string | undefined;
  let collecting = false;
  for (const rawLine of body.split(/\r\n|\r|\n/)) {
    const line = rawLine.trim();
    if (fence !== undefined) {
      if (line.startsWith(fence) && line.slice(fence.length).trim() === '') fence = undefined;
      continue;
    }
    const opener = fenceOpener.exec(line);
    if (opener) {
      fence = opener[1];
      collecting = false;
      continue;
    }
    if (line.toLowerCase() === 'tools:') {
      collecting = true;
      continue;
    }
    if (!collecting || line === '' || line.startsWith('#')) continue;
    if (!line.startsWith('-')) {
      collecting = false;
      continue;
    }
    const name = withoutComment(line.slice(1).trim());
    if (name === '' || name.startsWith('#') || seen.has(name)) continue;
    seen.add(name);
    tools.push(name);
  }
  return tools;
}
