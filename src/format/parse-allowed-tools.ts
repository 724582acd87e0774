/**
 * Splits at separators outside parentheses, so `Bash(git add:*)` stays one entry even though it
 * holds a space, and `Bash(jq:*), Read` splits at the comma only.
 */
function splitOutsideParentheses(text: string, separators: RegExp): string[] {
  const entries: string[] = [];
  let depth = 0;
  let current = '';
  for (const character of text) {
    if (character === '(') depth += 1;
    else if (character === ')' && depth > 0) depth -= 1;
    if (depth === 0 && separators.test(character)) {
      if (current.trim() !== '') entries.push(current.trim());
      current = '';
    } else {
      current += character;
    }
  }
  if (current.trim() !== '') entries.push(current.trim());
  return entries;
}

function hasTopLevelComma(text: string): boolean {
  let depth = 0;
  for (const character of text) {
    if (character === '(') depth += 1;
    else if (character === ')' && depth > 0) depth -= 1;
    else if (character === ',' && depth === 0) return true;
  }
  return false;
}

/**
 * Reads `allowed-tools` the way Claude Code does: a space-separated string (the specification),
 * a comma-separated string, or a YAML list. Anything else gives an empty list; the parser warns.
 */
export function parseAllowedTools(value: unknown): string[] {
  if (typeof value === 'string') {
    return splitOutsideParentheses(value, hasTopLevelComma(value) ? /,/ : /\s/);
  }
  if (Array.isArray(value)) {
    return value
      .filter((item): item is string | number => typeof item === 'string' || typeof item === 'number')
      .map((item) => String(item).trim())
      .filter((item) => item !== '');
  }
  return [];
}
