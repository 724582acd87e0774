import { verifyInstalled } from '../../hub/install/installer.js';
import type { CliCommand, CliIo } from '../command.js';
import { targetOptionsUsage } from '../hub-command-support.js';
import { parseCommandArguments } from '../parse-command-arguments.js';
import { terminalSafe } from '../terminal-safe-text.js';

const usage = `Usage: skillbox verify [--to DIR] [--json]

Compares every installed skill with skills-lock.json and lists each difference: a file changed,
added or removed, an executable bit changed, a link or special file, a missing skill folder, and
skill folders the lock does not list. Entries written by the skills CLI (no per-file hashes) are
checked by their computedHash. Without --to, a project lock's skills are looked for in
.agents/skills, then in the skills folder of every other dot folder of the project (.claude/skills,
...), where the skills CLI installs for other agents; the rule list --locked follows too.

Options:
${targetOptionsUsage}
  --json         print {"lockFile","skills":[{"name","differences":[...]}],"unlisted":[...]}

Exit status: 0 when everything matches, 1 when anything differs, 2 on bad usage.
`;

async function run(args: string[], given: CliIo): Promise<number> {
  // What this prints comes from skills, sources or servers: no terminal controls (no colours here).
  const io: CliIo = { ...given, stdout: (text) => given.stdout(terminalSafe(text)) };
  const { values } = parseCommandArguments({
    args,
    options: { to: { type: 'string' }, lock: { type: 'string' }, json: { type: 'boolean', default: false } },
    allowPositionals: false,
    strict: true,
  });
  const report = await verifyInstalled({
    cwd: io.cwd,
    ...(values.to === undefined ? {} : { target: values.to }),
    ...(values.lock === undefined ? {} : { lockFile: values.lock }),
  });
  const failing = report.skills.filter((skill) => skill.differences.length > 0);
  if (values.json === true) {
    io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    for (const skill of report.skills) {
      io.stdout(`${skill.differences.length === 0 ? 'ok     ' : 'CHANGED'} ${skill.name}\n`);
      for (const difference of skill.differences) io.stdout(`          ${difference}\n`);
    }
    for (const name of report.unlisted) io.stdout(`UNLISTED ${name} (installed, but not in ${report.lockFile})\n`);
    io.stdout(
      `\n${report.skills.length - failing.length} of ${report.skills.length} skills match ${report.lockFile}${report.unlisted.length === 0 ? '' : `; ${report.unlisted.length} not listed`}\n`,
    );
  }
  return failing.length === 0 && report.unlisted.length === 0 ? 0 : 1;
}

export const verifyCommand: CliCommand = {
  name: 'verify',
  usage,
  run,
};
