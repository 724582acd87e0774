/** A line of a skill's text that runs one of the skill's own files through an interpreter. */
export interface InterpreterCall {
  /** The skill's file that is run. */
  readonly path: string;
  readonly interpreter: string;
  /** 1-based line of the text that says to run it. */
  readonly line: number;
}

/**
 * Programs that run the file named after them (and their options). Written as the command a skill
 * would tell the model to type; `source` and `.` run a file in the current shell.
 */
const interpreterCall =
  /(?:^|[\s`'"$(;&|])(python[23]?(?:\.\d+)?|pypy3?|py|node|nodejs|deno(?:\s+run)?|bun(?:\s+run)?|tsx|ts-node|bash|sh|zsh|dash|ksh|fish|ruby|perl|php|lua|Rscript|julia|pwsh|powershell|osascript|source|\.)((?:\s+-{1,2}[\w-]+(?:=\S*)?)*)\s+(["']?)([^\s`'";|&)<>]+)\3/g;

/** Options after which the next word is code or a module, not a file (`python -c`, `node -e`, `python -m`). */
const notAFileOption = /(?:^|\s)-(?:c|e|m|p|-eval|-print|-command)(?:\s|=|$)/;

/** What may precede a command on its line: nothing, a prompt, a backtick, or a shell separator. */
const commandStart = /(?:^\s*(?:\$\s*)?`?|[;&|(]\s*)$/;

/**
 * Every line of `text` that names one of `files` as the file an interpreter runs: `python3
 * scripts/x.txt`, `bash "{baseDir}/docs/setup.md"`, `source ./env.txt`. A path matches when it is
 * the file's path or ends with `/` and the path, so a placeholder or absolute prefix for the skill
 * folder is allowed.
 */
export function interpreterCallsIn(text: string, files: ReadonlySet<string>): InterpreterCall[] {
  const calls: InterpreterCall[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] as string;
    for (const match of line.matchAll(interpreterCall)) {
      const [, interpreter, options, , argument] = match;
      if (notAFileOption.test(options ?? '')) continue;
      // `source` and `.` are words of prose too; count them only where a command starts.
      if (
        (interpreter === 'source' || interpreter === '.') &&
        !commandStart.test(line.slice(0, match.index + match[0].indexOf(interpreter as string)))
      )
        continue;
      const named = (argument as string).replace(/^\.\//, '');
      const path = files.has(named) ? named : [...files].find((file) => named.endsWith(`/${file}`));
      if (path !== undefined)
        calls.push({ path, interpreter: (interpreter as string).replace(/\s+/g, ' '), line: index + 1 });
    }
  }
  return calls;
}
