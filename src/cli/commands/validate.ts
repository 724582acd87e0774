import { realpath, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { findSkillMarkdown } from '../../format/find-skill-markdown.js';
import { validateSkillDirectory } from '../../format/validate-skill-directory.js';
import { compareNames } from '../../repository/compare-names.js';
import { scanSkillRoot } from '../../repository/scan-skill-root.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { parseCommandArguments } from '../parse-command-arguments.js';
import { paint, warningLine } from '../terminal-style.js';

const usage = `Usage: skillbox validate PATH... [--json]

Checks each skill strictly against the Agent Skills specification, with the messages of the
reference validator (skills-ref). PATH is a skill folder or its SKILL.md, or a folder of skills:
a folder with no SKILL.md of its own has each skill folder below it validated, in path order
(a folder holding SKILL.md owns its subfolders, as when skills are loaded).

  Valid skill: PATH                      on standard output
  Validation failed for PATH:            on standard error, then one "  - MESSAGE" per error
  warning: PATH: MESSAGE                 on standard error, after its skill's lines

Options:
  --json    print [{"path","valid","errors","warnings"}] on standard output instead

Exit status: 0 when every skill is valid, 1 when any is not, 2 on bad usage.
`;

function parse(args: string[]): { paths: string[]; json: boolean } {
  const { values, positionals } = parseCommandArguments({
    args,
    options: { json: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length === 0) throw new CliUsageError('at least one PATH is required');
  return { paths: positionals, json: values.json === true };
}

/**
 * The skills a PATH names: itself when it is a file or holds a SKILL.md (or is missing, which
 * validateSkillDirectory reports), else every skill folder below it. A folder with no skill
 * anywhere below is itself validated, so it fails with "Missing required file: SKILL.md".
 */
async function skillPathsIn(path: string): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined || !info.isDirectory() || (await findSkillMarkdown(path)) !== undefined) return [path];
  const scan = await scanSkillRoot(await realpath(path), { maxDepth: 12, maxEntries: 250_000 });
  const real = await realpath(path);
  const below = [...scan.found.map((found) => found.folder), ...scan.skipped.map((skipped) => dirname(skipped.path))]
    .map((folder) => join(path, relative(real, folder)))
    .sort(compareNames);
  return below.length === 0 ? [path] : below;
}

async function run(args: string[], io: CliIo): Promise<number> {
  const { paths, json } = parse(args);
  const results = [];
  // One at a time, in argument order, so the output order matches the command line.
  for (const path of paths)
    for (const skillPath of await skillPathsIn(path)) results.push(await validateSkillDirectory(skillPath));

  if (json) {
    io.stdout(`${JSON.stringify(results, null, 2)}\n`);
  } else {
    for (const result of results) {
      if (result.valid) io.stdout(`${paint(io, 'stdout', 'green', 'Valid skill:')} ${result.path}\n`);
      else
        io.stderr(
          `${paint(io, 'stderr', 'red', 'Validation failed for')} ${result.path}:\n${result.errors.map((error) => `  - ${error}\n`).join('')}`,
        );
      // Named by path, since with several PATHs a warning cannot be told apart by position alone.
      for (const warning of result.warnings) io.stderr(warningLine(io, `${result.path}: ${warning}`));
    }
  }
  return results.every((result) => result.valid) ? 0 : 1;
}

export const validateCommand: CliCommand = {
  name: 'validate',
  usage,
  run,
};
