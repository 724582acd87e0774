/**
 * Lines that are code in a common scripting language and rarely prose or data: imports,
 * definitions, a call at the start of a line, shell control words. Each is tried on one line.
 */
const codeLines: ReadonlyArray<readonly [string, RegExp]> = [
  [
    'Python',
    /^\s*(?:import\s+[\w.]+(?:\s+as\s+\w+)?\s*$|from\s+[\w.]+\s+import\s+\S|def\s+\w+\s*\(|class\s+\w+\s*[(:]|if\s+__name__\s*==|async\s+def\s+\w+\s*\()/,
  ],
  [
    'JavaScript',
    /^\s*(?:import\s+.+\s+from\s+["']|import\s+["']|export\s+(?:default|const|function|class|async)\b|(?:const|let|var)\s+[\w${}[\], ]+\s*=|(?:async\s+)?function\s*\*?\s*\w*\s*\(|module\.exports\b|require\s*\()/,
  ],
  [
    'shell',
    /^\s*(?:set\s+-[euxo]|export\s+\w+=|if\s+\[\[?\s|then\s*$|fi\s*$|done\s*$|for\s+\w+\s+in\s+\S|while\s+\S.*;\s*do\b|\w+=\$\(|case\s+\S+\s+in\s*$)/,
  ],
  [
    'Perl, Ruby or PHP',
    /^\s*(?:<\?php|use\s+(?:strict|warnings)\s*;|my\s+[$@%]\w+|require\s+["']\w|puts\s+\S|end\s*$)/,
  ],
  [
    'C-family or Go',
    /^\s*(?:#include\s*[<"]|package\s+\w+\s*;?\s*$|func\s+\w*\s*\(|fn\s+\w+\s*\(|public\s+(?:static\s+)?(?:class|void)\b|int\s+main\s*\()/,
  ],
  // A call as a whole line: `subprocess.run(["id"])`, `main()`, `os.system('x');`.
  ['code', /^\s*[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\s*\(.*\)\s*;?\s*$/],
];

/**
 * The language text looks written in, or undefined when it reads as prose or data. Code is told by
 * lines: at least two code lines that make up at least a fifth of the non-blank lines, so a note
 * that quotes one command stays prose, and a script saved under a prose or data name does not.
 */
export function codeLanguageOf(text: string): string | undefined {
  const counts = new Map<string, number>();
  let code = 0;
  let lines = 0;
  for (const line of text.split('\n', 10_000)) {
    if (line.trim() === '') continue;
    lines += 1;
    for (const [language, pattern] of codeLines)
      if (pattern.test(line)) {
        code += 1;
        counts.set(language, (counts.get(language) ?? 0) + 1);
        break;
      }
  }
  if (code < 2 || code * 5 < lines) return undefined;
  const named = [...counts.entries()].filter(([language]) => language !== 'code').sort((a, b) => b[1] - a[1]);
  return named[0]?.[0] ?? 'code';
}
