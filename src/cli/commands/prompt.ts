import { type CatalogFormat, renderCatalogWithReport } from '../../disclosure/catalog.js';
import { knowledgeToolNames } from '../../tools/create-skill-tools.js';
import type { SkillToolName } from '../../tools/tool-names.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { parseCommandArguments } from '../parse-command-arguments.js';
import { describeRoots, openRepositoryFromArgs } from '../skill-roots.js';

const usage = `Usage: skillbox prompt [--root DIR]... [--format text|xml] [--budget TOKENS] [--profile knowledge|full]

Prints exactly the skills text an agent adds to the model's system prompt: the catalog of the
visible skills and the guidance for the tools the profile registers. Nothing is printed when there
are no skills (the model then gets no catalog).

Options:
  --root DIR         a folder to scan recursively; repeat for several, earlier roots win a name.
                     Without --root: the standard roots (see skillbox list)
  --format FORMAT    text (default): "Available skills:" and "- name: description" lines;
                     xml: the agentskills.io client guide's <available_skills>
  --budget TOKENS    keep the text within TOKENS o200k tokens: descriptions are shortened first,
                     then the last skills are listed by name only, and the text says so; no skill
                     is dropped, so when the names alone exceed TOKENS a warning goes to stderr
  --profile PROFILE  knowledge (default): skill_load, skill_list_docs, skill_select_docs, skill_read;
                     full: those plus skill_run and workspace_exec

Exit status: 0, or 2 on bad usage.
`;

/** The tools each profile registers, as the guidance names them. */
const profileTools: Record<string, readonly SkillToolName[]> = {
  knowledge: knowledgeToolNames,
  full: [...knowledgeToolNames, 'skill_run', 'workspace_exec'],
};

interface PromptArgs {
  roots: string[];
  format: CatalogFormat;
  budget?: number;
  profile: string;
}

function parse(args: string[]): PromptArgs {
  const { values } = parseCommandArguments({
    args,
    options: {
      root: { type: 'string', multiple: true, default: [] },
      format: { type: 'string', default: 'text' },
      budget: { type: 'string' },
      profile: { type: 'string', default: 'knowledge' },
    },
    allowPositionals: false,
    strict: true,
  });
  const format = values.format;
  if (format !== 'text' && format !== 'xml') throw new CliUsageError(`--format must be text or xml, got "${format}"`);
  const profile = values.profile ?? 'knowledge';
  if (profileTools[profile] === undefined)
    throw new CliUsageError(`--profile must be knowledge or full, got "${profile}"`);
  let budget: number | undefined;
  if (values.budget !== undefined) {
    budget = Number(values.budget);
    if (!/^\d+$/.test(values.budget) || !Number.isSafeInteger(budget) || budget <= 0) {
      throw new CliUsageError(`--budget must be a positive whole number of tokens, got "${values.budget}"`);
    }
  }
  return { roots: values.root ?? [], format, profile, ...(budget === undefined ? {} : { budget }) };
}

async function run(args: string[], io: CliIo): Promise<number> {
  const options = parse(args);
  const repository = await openRepositoryFromArgs(options.roots, io, 'prompt');
  const skills = await repository.list();
  if (skills.length === 0) {
    io.stderr(`No skills found in ${describeRoots(repository, options.roots, io)}; the model gets no catalog.\n`);
    return 0;
  }
  const report = renderCatalogWithReport({
    skills,
    format: options.format,
    tools: profileTools[options.profile]!,
    ...(options.budget === undefined ? {} : { budget: { tokens: options.budget } }),
  });
  io.stdout(`${report.text}\n`);
  if (report.overBudget) {
    io.stderr(
      `warning: the catalog is ${report.tokens} tokens, over the --budget of ${options.budget}: even the names of all ${report.total} skills do not fit ` +
        `(${report.described} shown with a description). Raise --budget or show fewer skills.\n`,
    );
  }
  return 0;
}

export const promptCommand: CliCommand = {
  name: 'prompt',
  usage,
  run,
};
