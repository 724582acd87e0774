import { validateSkillDirectory } from '../../format/validate-skill-directory.js';
import { CliUsageError, type CliCommand, type CliIo } from '../command.js';
import { parseCommandArguments } from '../parse-command-arguments.js';

const usage = `Usage: skillbox validate PATH... [--json]

Checks each skill strictly against the Agent Skills specification, with the messages of the
reference validator (skills-ref). PATH is a skill folder or its SKILL.md.

  Valid skill: PATH                      on standard output
  Validation failed for PATH:            on standard error, then one "  - MESSAGE" per error
  warning: PATH: MESSAGE                 on standard error, after its skill's lines

Options:
  --json    print [{"path","valid","errors","warnings"}] on standard output instead

Exit status: 0 when every skill is valid, 1 when any is not, 2 on bad usage.
`;

function parse(args: string[]): { paths: string[]; json: boolean } {
  const { values, positionals } = parseCommandArguments({ args, options: { json: { type: 'boolean', default: false } }, allowPositionals: true, strict: true });
  if (positionals.length === 0) throw new CliUsageError('at least one PATH is required');
  return { paths: positionals, json: values.json === true };
}

async function run(args: string[], io: CliIo): Promise<number> {
  const { paths, json } = parse(args);
  const results = [];
  // One at a time, in argument order, so the output order matches the command line.
  for (const path of paths) results.push(await validateSkillDirectory(path));

  if (json) {
    io.stdout(`${JSON.stringify(results, null, 2)}\n`);
  } else {
    for (const result of results) {
      if (result.valid) io.stdout(`Valid skill: ${result.path}\n`);
      else io.stderr(`Validation failed for ${result.path}:\n${result.errors.map((error) => `  - ${error}\n`).join('')}`);
      // Named by path, since with several PATHs a warning cannot be told apart by position alone.
      for (const warning of result.warnings) io.stderr(`warning: ${result.path}: ${warning}\n`);
    }
  }
  return results.every((result) => result.valid) ? 0 : 1;
}

export const validateCommand: CliCommand = {
  name: 'validate',
  summary: 'check skills strictly against the Agent Skills specification',
  usage,
  run,
};
