import { SkillNotFoundError } from '../../repository/errors.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { parseCommandArguments } from '../parse-command-arguments.js';
import { openRepositoryFromArgs } from '../skill-roots.js';
import { terminalSafe } from '../terminal-safe-text.js';
import { unknownSkillHint } from '../unknown-skill-hint.js';

const usage = `Usage: skillbox show NAME [--root DIR]... [--file REL]

Prints a skill's SKILL.md body (frontmatter stripped), or one of its bundled files.

Options:
  --root DIR   a folder to scan recursively; repeat for several (default: the standard roots,
               as in skillbox list)
  --file REL   print this file instead, a path relative to the skill folder (no absolute paths,
               no "..", no links that leave the folder)

Exit status: 0 on success, 1 when the skill or file does not exist or the path is refused, 2 on bad usage.
`;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function parse(args: string[]): { name: string; roots: string[]; file: string | undefined } {
  const { values, positionals } = parseCommandArguments({
    args,
    options: { root: { type: 'string', multiple: true, default: [] }, file: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const [name, ...extra] = positionals;
  if (name === undefined) throw new CliUsageError('NAME is required');
  if (extra.length > 0)
    throw new CliUsageError(`expected one NAME, got ${positionals.length}: ${positionals.join(' ')}`);
  return { name, roots: values.root ?? [], file: values.file };
}

async function run(args: string[], given: CliIo): Promise<number> {
  // A skill's text on a terminal carries no terminal controls; piped into a file it stays as it is.
  const io: CliIo =
    given.stdoutIsTerminal === true ? { ...given, stdout: (text) => given.stdout(terminalSafe(text)) } : given;
  const { name, roots, file } = parse(args);
  const repository = await openRepositoryFromArgs(roots, io, 'show');
  try {
    if (file === undefined) {
      const { body } = await repository.get(name);
      io.stdout(body.endsWith('\n') || body === '' ? body : `${body}\n`);
      return 0;
    }
    const bytes = await repository.readFile(name, file);
    let text: string;
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      // A terminal is the wrong place for binary bytes; the caller can copy the file instead.
      io.stderr(`skillbox show: ${file} of skill "${name}" is not UTF-8 text (${bytes.length} bytes); not printed\n`);
      return 1;
    }
    io.stdout(text);
    return 0;
  } catch (error) {
    if (error instanceof SkillNotFoundError) {
      const hint = await unknownSkillHint(repository, name);
      io.stderr(
        `skillbox show: ${error.message}${hint === '' ? ';' : `.${hint}`} \`skillbox list\` shows the available names\n`,
      );
      return 1;
    }
    throw error;
  }
}

export const showCommand: CliCommand = {
  name: 'show',
  usage,
  run,
};
