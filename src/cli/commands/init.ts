import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { initSkill } from '../../hub/install/init-skill.js';
import { standardSkillRoots } from '../../repository/standard-roots.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { parseCommandArguments } from '../parse-command-arguments.js';

const usage = `Usage: skillbox init NAME [--to DIR] [--description TEXT]

Creates DIR/NAME/SKILL.md, a skill that passes skillbox validate (NAME must follow the
specification's naming rules: lowercase letters, digits and single hyphens, at most 64).
By default it goes into .agents/skills, a standard root, so list, show, chat and mcp find it
without --root; with --to a folder no standard root covers, it says which --root to give.

Options:
  --to DIR            the folder to create the skill in (default: .agents/skills under the
                      current folder)
  --description TEXT  the description (default: a placeholder saying what to write)

Exit status: 0 created, 1 when NAME is invalid or the folder exists, 2 on bad usage.
`;

const defaultInitFolder = '.agents/skills';

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArguments({
    args,
    options: { to: { type: 'string' }, description: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new CliUsageError('give exactly one NAME');
  // The first project root the other commands search, so the next `list` shows the new skill.
  const to = values.to ?? defaultInitFolder;
  const folder = await initSkill(positionals[0] as string, {
    cwd: io.cwd,
    folder: to,
    ...(values.description === undefined ? {} : { description: values.description }),
  });
  io.stdout(`created ${folder}/SKILL.md\n`);
  const parent = resolve(io.cwd, to);
  const roots = standardSkillRoots({ cwd: io.cwd, env: io.env, home: io.env.HOME ?? homedir() });
  if (!roots.includes(parent))
    io.stderr(
      `${parent} is not a standard skill root: give --root ${to} to list, show, chat and mcp to use the skill\n`,
    );
  return 0;
}

export const initCommand: CliCommand = {
  name: 'init',
  usage,
  run,
};
