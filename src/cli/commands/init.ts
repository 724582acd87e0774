import { initSkill } from '../../hub/install/init-skill.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { parseCommandArguments } from '../parse-command-arguments.js';

const usage = `Usage: skillbox init NAME [--to DIR] [--description TEXT]

Creates DIR/NAME/SKILL.md, a skill that passes skillbox validate (NAME must follow the
specification's naming rules: lowercase letters, digits and single hyphens, at most 64).

Options:
  --to DIR            the folder to create the skill in (default: the current folder)
  --description TEXT  the description (default: a placeholder saying what to write)

Exit status: 0 created, 1 when NAME is invalid or the folder exists, 2 on bad usage.
`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArguments({
    args,
    options: { to: { type: 'string' }, description: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new CliUsageError('give exactly one NAME');
  const folder = await initSkill(positionals[0] as string, {
    cwd: io.cwd,
    ...(values.to === undefined ? {} : { folder: values.to }),
    ...(values.description === undefined ? {} : { description: values.description }),
  });
  io.stdout(`created ${folder}/SKILL.md\n`);
  return 0;
}

export const initCommand: CliCommand = {
  name: 'init',
  usage,
  run,
};
