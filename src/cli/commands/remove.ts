import { removeSkill } from '../../hub/install/installer.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { installerOptionsFor, targetOptionsUsage } from '../hub-command-support.js';
import { parseCommandArguments } from '../parse-command-arguments.js';

const usage = `Usage: skillbox remove NAME... [--to DIR]

Deletes installed skills, the agent-folder links skillbox made for them (add --link), and their
skills-lock.json entries. A path in an agent folder that no longer is skillbox's link or copy is
left alone and reported.

Options:
${targetOptionsUsage}

Exit status: 0 removed, 1 when a skill is not installed, 2 on bad usage.
`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArguments({
    args,
    options: { to: { type: 'string' }, lock: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length === 0) throw new CliUsageError('name at least one skill to remove');
  const options = installerOptionsFor(io, 'remove', { to: values.to, lock: values.lock }, () => {});
  for (const name of positionals) {
    const removed = await removeSkill(name, options);
    io.stdout(`removed ${removed.name}\n`);
    for (const kept of removed.keptLinks) io.stderr(`skillbox remove: left ${kept}\n`);
  }
  return 0;
}

export const removeCommand: CliCommand = {
  name: 'remove',
  usage,
  run,
};
