import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { createCliSourceRegistry } from '../hub-command-support.js';
import { parseCommandArguments } from '../parse-command-arguments.js';
import { terminalSafe } from '../terminal-safe-text.js';

const usage = `Usage: skillbox search QUERY [--limit N] [--json]

Searches every source that has a catalogue and prints each hit with the SOURCE to give skillbox add.

Options:
  --limit N   at most N hits (default 20)
  --json      print {"results":[{"name","description","source","installs"?}],"failures":[...]}

Exit status: 0 (also with no hits, when at least one source was searched), 1 when no source can
search or every search failed (each failure is printed), 2 on bad usage.
`;

async function run(args: string[], given: CliIo): Promise<number> {
  // What this prints comes from skills, sources or servers: no terminal controls (no colours here).
  const io: CliIo = { ...given, stdout: (text) => given.stdout(terminalSafe(text)) };
  const { values, positionals } = parseCommandArguments({
    args,
    options: { limit: { type: 'string', default: '20' }, json: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length === 0) throw new CliUsageError('give a QUERY');
  const limit = Number(values.limit);
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new CliUsageError(`--limit must be a positive integer, got "${values.limit}"`);
  const registry = createCliSourceRegistry(io);
  const { results, failures, searched } = await registry.search(positionals.join(' '), { limit });
  if (searched === 0) {
    io.stderr(
      `skillbox search: none of the configured sources (${registry.sources.map((source) => source.type).join(', ')}) has a catalogue to search\n`,
    );
    return 1;
  }
  for (const failure of failures) io.stderr(`skillbox search: ${failure}\n`);
  // Every search failed: nothing was searched, so "no skill matches" would be a false answer.
  if (failures.length === searched) {
    io.stderr(
      `skillbox search: no source could be searched (${searched} tried, every one failed), so this says nothing about whether a skill matches "${positionals.join(' ')}"\n`,
    );
    if (values.json === true) io.stdout(`${JSON.stringify({ results, failures }, null, 2)}\n`);
    return 1;
  }
  if (values.json === true) {
    io.stdout(`${JSON.stringify({ results, failures }, null, 2)}\n`);
  } else {
    if (results.length === 0) io.stdout(`no skill matches "${positionals.join(' ')}"\n`);
    for (const hit of results)
      io.stdout(
        `${hit.name}  ${hit.source}${hit.installs === undefined ? '' : `  (${hit.installs} installs)`}\n    ${hit.description}\n`,
      );
  }
  return 0;
}

export const searchCommand: CliCommand = {
  name: 'search',
  usage,
  run,
};
