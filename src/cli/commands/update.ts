import { updateSkills } from '../../hub/install/installer.js';
import type { CliCommand, CliIo } from '../command.js';
import { gitTransportUsage, installerOptionsFor, installProgress, targetOptionsUsage } from '../hub-command-support.js';
import { parseCommandArguments } from '../parse-command-arguments.js';

const usage = `Usage: skillbox update [NAME]... [--to DIR] [--yes] [--deny-scripts]

Fetches each skill of skills-lock.json (or only those named) from its source at its ref again, and
reinstalls those whose content changed, after the same checks and scan as add.

Options:
${targetOptionsUsage}
  --yes          accept the scan without asking
  --deny-scripts install only skills whose files are all of an inert type (Markdown, plain text and
                 data that are not code, images); refuse scripts, executables, binaries and the rest
${gitTransportUsage}

Exit status: 0 (also when everything was up to date), 1 refused or failed, 2 on bad usage.
`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArguments({
    args,
    options: {
      to: { type: 'string' },
      lock: { type: 'string' },
      yes: { type: 'boolean', short: 'y', default: false },
      'deny-scripts': { type: 'boolean', default: false },
      'allow-unencrypted-git': { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const progress = installProgress(io, 'update');
  try {
    const updated = await updateSkills(
      positionals,
      installerOptionsFor(
        io,
        'update',
        {
          to: values.to,
          lock: values.lock,
          yes: values.yes === true,
          denyScripts: values['deny-scripts'] === true,
          allowUnencryptedGit: values['allow-unencrypted-git'] === true,
        },
        progress.onProgress,
      ),
    );
    progress.done();
    if (updated.length === 0) io.stdout('everything is up to date\n');
    for (const skill of updated) io.stdout(`updated ${skill.name} -> ${skill.path}\n`);
    return 0;
  } finally {
    progress.done();
  }
}

export const updateCommand: CliCommand = {
  name: 'update',
  usage,
  run,
};
