import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { formatScanReports } from '../../hub/scan/format-scan-report.js';
import { scanSkillFolders } from '../../hub/scan/scan-folder.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { parseCommandArguments } from '../parse-command-arguments.js';
import { terminalSafe } from '../terminal-safe-text.js';

const usage = `Usage: skillbox scan PATH [--json]

Reports, per skill at or below PATH, what a reviewer must see before it runs: scripts (with their
interpreters), executables, binaries, hidden files, links, special and large files, the
allowed-tools SKILL.md requests, network and shell use in scripts, long base64 or hex blobs, and
invisible or bidirectional Unicode in SKILL.md and docs. Nothing is run or followed.

Options:
  --json   print {"skills":[{"skill","files","bytes","findings":[{"kind","path","detail","line"?}]}]}

Exit status: 0 when nothing needs review, 1 when something does, 2 on bad usage or no skill at PATH.
`;

async function run(args: string[], given: CliIo): Promise<number> {
  // What this prints comes from skills, sources or servers: no terminal controls (no colours here).
  const io: CliIo = { ...given, stdout: (text) => given.stdout(terminalSafe(text)) };
  const { values, positionals } = parseCommandArguments({
    args,
    options: { json: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new CliUsageError('give exactly one PATH');
  const path = resolve(io.cwd, positionals[0] as string);
  const isFolder = await stat(path).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
  if (!isFolder) throw new CliUsageError(`${path} is not a folder`);
  const reports = await scanSkillFolders(path);
  if (reports.length === 0) throw new CliUsageError(`no SKILL.md at or below ${path}`);
  if (values.json === true) io.stdout(`${JSON.stringify({ skills: reports }, null, 2)}\n`);
  else io.stdout(formatScanReports(reports));
  return reports.some((report) => report.findings.length > 0) ? 1 : 0;
}

export const scanCommand: CliCommand = {
  name: 'scan',
  usage,
  run,
};
