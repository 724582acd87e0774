export interface QuotedColonValue {
  key: string;
  /** 1-based line within the YAML text. */
  line: number;
}

export interface ColonQuotingResult {
  yaml: string;
  quoted: QuotedColonValue[];
}

// Characters that make a value something other than a plain scalar (quoted, block, flow, anchor, alias, tag, ...).
const nonPlainStart = new Set(['"', "'", '|', '>', '[', '{', '&', '*', '!', '%', '@', '`', '#']);

function indentOf(line: string): number {
  let index = 0;
  while (index < line.length && (line[index] === ' ' || line[index] === '\t')) index += 1;
  return index;
}

/** The part of a plain value before a ` #` comment. */
function beforeComment(value: string): string {
  const comment = value.search(/[ \t]#/);
  return comment === -1 ? value : value.slice(0, comment).trimEnd();
}

/**
 * The client guide's repair for the most common broken frontmatter: a plain value holding `: `
 * (`description: Use when: the user asks`). Such values, with their continuation lines folded as
 * YAML folds a plain scalar, are rewritten as double-quoted strings. Continuation lines become
 * blank lines so that line numbers in later errors still point at the original file.
 */
export function quoteColonValues(yaml: string): ColonQuotingResult {
  const lines = yaml.split('\n');
  const quoted: QuotedColonValue[] = [];
  // Lines of a block scalar (`|`, `>`) are text, never keys: skip everything indented below its key.
  let blockIndent = -1;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    const indent = indentOf(line);
    if (blockIndent >= 0) {
      if (line.trim() === '' || indent > blockIndent) continue;
      blockIndent = -1;
    }
    const separator = line.indexOf(': ', indent);
    if (separator === -1) continue;
    const key = line.slice(indent, separator);
    if (
      key === '' ||
      nonPlainStart.has(key[0] ?? '') ||
      key.startsWith('- ') ||
      key.startsWith('? ') ||
      key.includes(' #')
    )
      continue;
    const value = line.slice(separator + 2).trim();
    if (value.startsWith('|') || value.startsWith('>')) {
      blockIndent = indent;
      continue;
    }
    if (value === '' || nonPlainStart.has(value[0] ?? '')) continue;
    const plain = beforeComment(value);
    if (!plain.includes(': ') && !plain.endsWith(':')) continue;

    const parts = [plain];
    let end = index + 1;
    let pendingBlank = 0;
    while (end < lines.length) {
      const next = lines[end] ?? '';
      if (next.trim() === '') {
        pendingBlank += 1;
      } else if (indentOf(next) > indent) {
        // A blank line inside a plain scalar is a line break; otherwise lines join with a space.
        parts.push(
          pendingBlank > 0
            ? `${'\n'.repeat(pendingBlank)}${beforeComment(next.trim())}`
            : ` ${beforeComment(next.trim())}`,
        );
        pendingBlank = 0;
      } else {
        break;
      }
      end += 1;
    }
    const consumedUntil = end - pendingBlank;
    lines[index] = `${line.slice(0, separator)}: ${JSON.stringify(parts.join(''))}`;
    for (let continuation = index + 1; continuation < consumedUntil; continuation += 1) lines[continuation] = '';
    quoted.push({ key: key.trim(), line: index + 1 });
    index = consumedUntil - 1;
  }
  return { yaml: lines.join('\n'), quoted };
}
