import { type CatalogFormat, renderCatalog } from '../../disclosure/catalog.js';
import { countTokens } from '../../disclosure/token-counter.js';
import { buildTokenReport, percentSaved } from '../../disclosure/token-report.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { parseCommandArguments } from '../parse-command-arguments.js';
import { startProgress } from '../progress.js';
import { describeRoots, openRepositoryFromArgs } from '../skill-roots.js';

const usage = `Usage: skillbox tokens [--root DIR]... [--json] [--format text|xml]

Measures what progressive disclosure saves, with the o200k_base tokenizer: per skill the name and
description alone, its catalog entry, its SKILL.md body and its docs; in total the catalog against
injecting every body (and every body and doc) up front. Both catalog formats are reported.

Options:
  --root DIR       a folder to scan recursively; repeat for several (default: the standard roots)
  --json           print {"tokenizer","skills":[{"name","name_description_tokens","catalog_tokens",
                   "body_tokens","docs_tokens"}],"totals":{"name_description","catalog","bodies",
                   "bodies_and_docs"}}
  --format FORMAT  the catalog format the catalog figures use: text (default) or xml

Docs over 256 KiB are counted by their first 256 KiB, and docs the repository will not serve are
not counted; either is said on stderr (with --json) or after the figures. Runs of over 1,024
characters without spaces are counted in 1,024-character chunks, an upper bound.

Exit status: 0, or 2 on bad usage.
`;

function parse(args: string[]): { roots: string[]; json: boolean; format: CatalogFormat } {
  const { values } = parseCommandArguments({
    args,
    options: {
      root: { type: 'string', multiple: true, default: [] },
      json: { type: 'boolean', default: false },
      format: { type: 'string', default: 'text' },
    },
    allowPositionals: false,
    strict: true,
  });
  if (values.format !== 'text' && values.format !== 'xml')
    throw new CliUsageError(`--format must be text or xml, got "${values.format}"`);
  return { roots: values.root ?? [], json: values.json === true, format: values.format };
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
        .join('  '),
    )
    .join('\n');
}

function times(value: number, base: number): string {
  return base === 0 ? '-' : `${(value / base).toFixed(2)}x`;
}

async function run(args: string[], io: CliIo): Promise<number> {
  const options = parse(args);
  const repository = await openRepositoryFromArgs(options.roots, io, 'tokens');
  const progress = startProgress(io, 'tokens', `counting the tokens of ${(await repository.list()).length} skills`);
  let report: Awaited<ReturnType<typeof buildTokenReport>>;
  try {
    report = await buildTokenReport({
      repository,
      format: options.format,
      // Seconds alone do not say whether a large tree is nearly done.
      onProgress: (done, total) => progress.update(`counting the tokens of skills: ${done} of ${total} done`),
    });
  } finally {
    progress.done();
  }
  const notes: string[] = [];
  if (report.totals.docs_capped > 0)
    notes.push(
      `${report.totals.docs_capped} docs over ${report.max_counted_doc_bytes} bytes were counted by their first ${report.max_counted_doc_bytes} bytes`,
    );
  if (report.totals.docs_unreadable > 0)
    notes.push(
      `${report.totals.docs_unreadable} docs the repository would not serve (over its read limit, or not files) were not counted`,
    );
  if (options.json) {
    // Exactly the documented keys, so scripts can rely on the shape; the notes go to stderr.
    const { tokenizer, skills, totals } = report;
    const shaped = {
      tokenizer,
      skills: skills.map(({ name, name_description_tokens, catalog_tokens, body_tokens, docs_tokens }) => ({
        name,
        name_description_tokens,
        catalog_tokens,
        body_tokens,
        docs_tokens,
      })),
      totals: {
        name_description: totals.name_description,
        catalog: totals.catalog,
        bodies: totals.bodies,
        bodies_and_docs: totals.bodies_and_docs,
      },
    };
    io.stdout(`${JSON.stringify(shaped, null, 2)}\n`);
    for (const note of notes) io.stderr(`skillbox tokens: ${note}\n`);
    return 0;
  }
  if (report.skills.length === 0) {
    io.stdout(`No skills found in ${describeRoots(repository, options.roots, io)}.\n`);
    return 0;
  }
  const { totals } = report;
  const other: CatalogFormat = options.format === 'text' ? 'xml' : 'text';
  const otherCatalog = countTokens(renderCatalog({ skills: await repository.list(), format: other, guidance: false }));
  const rows = [['SKILL', 'NAME+DESC', 'CATALOG', 'BODY', 'DOCS']];
  for (const skill of report.skills) {
    rows.push([
      skill.name,
      String(skill.name_description_tokens),
      String(skill.catalog_tokens),
      String(skill.body_tokens),
      String(skill.docs_tokens),
    ]);
  }
  rows.push([
    'TOTAL',
    String(totals.name_description),
    String(totals.catalog),
    String(totals.bodies),
    String(totals.bodies_and_docs - totals.bodies),
  ]);
  const lines = [
    table(rows),
    '',
    `tokenizer: ${report.tokenizer}; ${report.skills.length} skills`,
    `names and descriptions alone: ${totals.name_description} tokens`,
    `catalog (${options.format}): ${totals.catalog} tokens (${times(totals.catalog, totals.name_description)} the names and descriptions)`,
    `catalog (${other}): ${otherCatalog} tokens (${times(otherCatalog, totals.name_description)} the names and descriptions)`,
    `all bodies up front: ${totals.bodies} tokens; the ${options.format} catalog saves ${percentSaved(totals.catalog, totals.bodies)}%`,
    `all bodies and docs up front: ${totals.bodies_and_docs} tokens; the ${options.format} catalog saves ${percentSaved(totals.catalog, totals.bodies_and_docs)}%`,
  ];
  lines.push(...notes);
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

export const tokensCommand: CliCommand = {
  name: 'tokens',
  usage,
  run,
};
