import { installFromLock } from '../../hub/install/installer.js';
import type { CliCommand, CliIo } from '../command.js';
import { gitTransportUsage, installerOptionsFor, installProgress, targetOptionsUsage } from '../hub-command-support.js';
import { parseCommandArguments } from '../parse-command-arguments.js';

const usage = `Usage: skillbox install [--frozen] [--to DIR] [--yes] [--deny-scripts]

Installs every skill listed in skills-lock.json (written by skillbox or by the skills CLI).

Options:
  --frozen       install exactly what the lock records (same commit or version, same content
                 hashes) or fail with nothing written; without it the lock is rewritten with
                 what the sources give now. Content that matches the lock was reviewed when it
                 was added: the scan is printed and nothing is asked (no --yes needed in CI)
${targetOptionsUsage}
  --yes          accept the scan without asking
  --deny-scripts install only skills whose files are all of an inert type (Markdown, plain text and
                 data that are not code, images); refuse scripts, executables, binaries and the rest
${gitTransportUsage}

Exit status: 0 installed, 1 refused or failed, 2 on bad usage.
`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArguments({
    args,
    options: {
      frozen: { type: 'boolean', default: false },
      to: { type: 'string' },
      lock: { type: 'string' },
      yes: { type: 'boolean', short: 'y', default: false },
      'deny-scripts': { type: 'boolean', default: false },
      'allow-unencrypted-git': { type: 'boolean', default: false },
    },
    allowPositionals: false,
    strict: true,
  });
  const progress = installProgress(io, 'install');
  try {
    const installed = await installFromLock({
      ...installerOptionsFor(
        io,
        'install',
        {
          to: values.to,
          lock: values.lock,
          yes: values.yes === true,
          denyScripts: values['deny-scripts'] === true,
          allowUnencryptedGit: values['allow-unencrypted-git'] === true,
        },
        progress.onProgress,
      ),
      frozen: values.frozen === true,
    });
    progress.done();
    if (installed.length === 0) io.stdout('the lock lists no skills\n');
    for (const skill of installed) io.stdout(`installed ${skill.name} -> ${skill.path}\n`);
    return 0;
  } finally {
    progress.done();
  }
}

export const installCommand: CliCommand = {
  name: 'install',
  usage,
  run,
};
