import { isSkillboxError } from '../../errors.js';
import { modelHiddenReason } from '../../format/model-invocation.js';
import { readSkillImage } from '../../format/skill-image.js';
import { compareNames } from '../../repository/compare-names.js';
import type { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import type { Skill, SkillRepository, SkippedSkill } from '../../repository/types.js';
import { createRequirementChecker, type RequirementCheck } from '../../requirements/check-requirements.js';
import {
  describeRequirements,
  readSkillRequirements,
  type SkillRequirements,
} from '../../requirements/skill-requirements.js';
import type { ContainerRuntimeOptions } from '../../runtime/container/container-runtime.js';
import { RUNTIME_KINDS, type RuntimeKind } from '../../runtime/runtime-kinds.js';
import { createSkillSearch } from '../../search/skill-search.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { containerFlagOptions, containerOptionsFromFlags } from '../container-flags.js';
import { addMcpSkillServers } from '../mcp-skill-sources.js';
import { parseCommandArguments } from '../parse-command-arguments.js';
import { startProgress } from '../progress.js';
import { describeRoots, openRepositoryFromArgs } from '../skill-roots.js';
import { terminalSafe } from '../terminal-safe-text.js';
import { warningLine } from '../terminal-style.js';

const usage = `Usage: skillbox list [--root DIR]... [--mcp [LABEL=]CMD|URL]... [--json] [--runtime KIND] [--query WORDS [--limit N] [--bodies]]

Lists the skills an agent would see (lenient loading: skills that break a naming rule are listed
with warnings; skills without a description or with broken YAML are skipped with the reason).

Options:
  --root DIR   a folder to scan recursively; repeat for several, earlier roots win a name.
               Without --root: $SKILLS_ROOT (':'-separated), ./.agents/skills, ./.claude/skills,
               ./skills, ~/.agents/skills, ~/.claude/skills
  --mcp SERVER also list the skills of an MCP server that serves the Skills Extension: a
               command line (started, spoken to over stdio) or an http(s) URL (Streamable
               HTTP; SKILLBOX_MCP_TOKEN is sent as its bearer token). LABEL names it; a name
               both it and another origin use is listed as LABEL:NAME. Repeatable.
  --json       print {"skills":[{"name","description","path","root","docs","tools","warnings",
               "model_visible","hidden_reason"?,"requires"?,"missing"?}],"skipped":[{"path","reason"}],
               "shadowed":[{"name","path","winner"}]} with absolute paths
  --runtime KIND  where skills' declared requirements (programs, variables, OS, network) are
               checked: auto (default: the bubblewrap sandbox where it works, else local), sandbox,
               local or container (in the --image given, with --engine and --oci-runtime as for
               skillbox run); checked as skill_run sees them with default options (no host
               variables, no network). Only skills that declare requirements or name an
               image (metadata skillbox-image: not allowed without --allow-image) are checked.

  --query WORDS  search instead of listing: the skills that best match WORDS, best first, with
               the BM25 score the model's skill_search tool gives (--json: {"query","results":
               [{"name","description","score"}]})
  --limit N    most results of --query (default 10)
  --bodies     --query also searches the SKILL.md bodies

Skills the model will not be offered (frontmatter disable-model-invocation: true, or
metadata.internal: true) are listed, marked "hidden", with the field that hides them: an agent's
own code can still load them.

Exit status: 0 (skipped skills do not fail a listing), 2 on bad usage.
`;

/** Longest description shown in the table; the full text is in --json. */
const descriptionWidth = 80;

interface ListArguments {
  roots: string[];
  mcp: string[];
  json: boolean;
  runtime: RuntimeKind;
  /** With `--runtime container`: the image whose tools the requirements are checked against. */
  container?: ContainerRuntimeOptions;
  query?: string;
  limit: number;
  bodies: boolean;
}

function parse(args: string[]): ListArguments {
  const { values } = parseCommandArguments({
    args,
    options: {
      root: { type: 'string', multiple: true, default: [] },
      mcp: { type: 'string', multiple: true, default: [] },
      json: { type: 'boolean', default: false },
      query: { type: 'string' },
      limit: { type: 'string' },
      bodies: { type: 'boolean', default: false },
      runtime: { type: 'string', default: 'auto' },
      ...containerFlagOptions,
    },
    allowPositionals: false,
    strict: true,
  });
  const query = values.query?.trim();
  if (values.query !== undefined && query === '') throw new CliUsageError('--query needs words to search for');
  if (query === undefined && (values.limit !== undefined || values.bodies === true))
    throw new CliUsageError('--limit and --bodies go with --query');
  const limit = values.limit === undefined ? 10 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new CliUsageError(`--limit must be a whole number of at least 1; got "${values.limit}"`);
  const runtime = values.runtime as RuntimeKind;
  if (!RUNTIME_KINDS.includes(runtime))
    throw new CliUsageError(`--runtime must be one of ${RUNTIME_KINDS.join(', ')}, got "${values.runtime}"`);
  const container = containerOptionsFromFlags(runtime, values);
  return {
    roots: values.root ?? [],
    mcp: values.mcp ?? [],
    json: values.json === true,
    runtime,
    ...(container === undefined ? {} : { container }),
    ...(query === undefined ? {} : { query }),
    limit,
    bodies: values.bodies === true,
  };
}

/** `list --query`: the search the model's skill_search runs, over every listed skill (hidden ones too). */
async function runQuery(repository: SkillRepository, options: ListArguments, io: CliIo): Promise<number> {
  const search = createSkillSearch(repository, { includeNonModelInvocable: true, bodies: options.bodies });
  const results = await search.search(options.query!, { limit: options.limit });
  if (options.json) {
    io.stdout(`${JSON.stringify({ query: options.query, results }, null, 2)}\n`);
    return 0;
  }
  if (results.length === 0) {
    io.stdout(`No skill matches "${options.query}".\n`);
    return 0;
  }
  const rows = [['NAME', 'SCORE', 'DESCRIPTION']];
  for (const hit of results) rows.push([hit.name, hit.score.toFixed(2), oneLine(hit.description, descriptionWidth)]);
  io.stdout(`${table(rows)}\n`);
  return 0;
}

function oneLine(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const characters = [...flat];
  return characters.length <= width ? flat : `${characters.slice(0, width - 1).join('')}…`;
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => [...(row[column] ?? '')].length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Declared requirements and their check, for the skills that declare any. */
const noRequirements: SkillRequirements = { programs: [], anyPrograms: [], env: [], os: [], network: false };

async function checkRequirements(
  skills: readonly Skill[],
  repository: SkillRepository,
  kind: RuntimeKind,
  container: ContainerRuntimeOptions | undefined,
): Promise<{ checked: Map<string, { requirements: SkillRequirements; check: RequirementCheck }>; where: string }> {
  const checked = new Map<string, { requirements: SkillRequirements; check: RequirementCheck }>();
  // A skill naming its image is checked too: the runtime may not allow that image.
  const declaring = skills.filter(
    (skill) =>
      readSkillRequirements(skill.metadata).requirements !== undefined || readSkillImage(skill).image !== undefined,
  );
  if (declaring.length === 0) return { checked, where: '' };
  // Loaded only here: most listings declare no requirements, and the runtimes bring their option schemas.
  const { createRuntime } = await import('../../runtime/create-runtime.js');
  const runtime = createRuntime({ kind, hostFallback: true, ...(container === undefined ? {} : { container }) });
  const checker = createRequirementChecker({ runtime, environment: {}, network: false });
  for (const skill of declaring) {
    checked.set(skill.name, {
      requirements: readSkillRequirements(skill.metadata).requirements ?? noRequirements,
      check: await checker.checkSkill(skill, repository),
    });
  }
  return { checked, where: runtime.kind };
}

async function run(args: string[], given: CliIo): Promise<number> {
  // Everything on standard output is text skills' authors wrote or derived from it; no colours there.
  const io: CliIo = { ...given, stdout: (text) => given.stdout(terminalSafe(text)) };
  const parsed = parse(args);
  const local = await openRepositoryFromArgs(parsed.roots, io, 'list');
  const sources = await addMcpSkillServers(local, parsed.mcp, io, 'list');
  try {
    if (parsed.query !== undefined) return await runQuery(sources.repository, parsed, io);
    return await listSkills(sources.repository, local, sources.labels, parsed, io);
  } finally {
    await sources.close();
  }
}

async function listSkills(
  repository: SkillRepository,
  local: FsSkillRepository,
  mcpLabels: string[],
  parsed: ListArguments,
  io: CliIo,
): Promise<number> {
  const { roots, json } = parsed;
  const summaries = await repository.list();
  const progress = startProgress(io, 'list', `reading ${summaries.length} skills`);
  let skills: Skill[];
  // A skill from an MCP server whose SKILL.md fails verification is reported as skipped, not fatal.
  const unverified: SkippedSkill[] = [];
  try {
    const loaded = await Promise.all(
      summaries.map((summary) =>
        repository.get(summary.name).catch((error: unknown) => {
          if (!isSkillboxError(error) || !error.code.startsWith('MCP_SKILL_')) throw error;
          unverified.push({ path: `${summary.root ?? 'mcp'} ${summary.name}`, reason: error.message });
          return undefined;
        }),
      ),
    );
    skills = loaded.filter((skill) => skill !== undefined);
  } finally {
    progress.done();
  }
  const found = await repository.report();
  const report = { ...found, skipped: [...found.skipped, ...unverified] };
  const where = `${describeRoots(local, roots, io)}${mcpLabels.length === 0 ? '' : ` and MCP ${mcpLabels.join(', ')}`}`;
  const { checked: requirements, where: checkedIn } = await checkRequirements(
    skills,
    repository,
    parsed.runtime,
    parsed.container,
  );
  const hiddenReason = (skill: Skill): string | undefined =>
    skill.modelInvocable === false ? (modelHiddenReason(skill.frontmatter) ?? 'not model-invocable') : undefined;

  if (json) {
    const output = {
      skills: skills.map((skill) => ({
        name: skill.name,
        description: skill.description,
        path: skill.path,
        root: skill.root,
        docs: skill.docs,
        tools: skill.tools,
        warnings: skill.warnings,
        model_visible: hiddenReason(skill) === undefined,
        ...(hiddenReason(skill) === undefined ? {} : { hidden_reason: hiddenReason(skill) }),
        ...(requirements.has(skill.name)
          ? {
              requires: requirements.get(skill.name)!.requirements,
              missing: requirements.get(skill.name)!.check.missing,
            }
          : {}),
      })),
      skipped: report.skipped.map(({ path, reason }) => ({ path, reason })),
      shadowed: report.shadowed.map(({ name, path, winner }) => ({ name, path, winner })),
    };
    io.stdout(`${JSON.stringify(output, null, 2)}\n`);
    return 0;
  }

  if (skills.length === 0) {
    io.stdout(`No skills found in ${where}.\n`);
  } else {
    const anyHidden = skills.some((skill) => hiddenReason(skill) !== undefined);
    const rows = [['NAME', 'DOCS', 'TOOLS', ...(anyHidden ? ['MODEL'] : []), 'DESCRIPTION']];
    for (const skill of skills) {
      rows.push([
        skill.name,
        String(skill.docs.length),
        String(skill.tools.length),
        ...(anyHidden ? [hiddenReason(skill) === undefined ? 'sees' : 'hidden'] : []),
        oneLine(skill.description, descriptionWidth),
      ]);
    }
    io.stdout(`${table(rows)}\n\n${skills.length} skill${skills.length === 1 ? '' : 's'} in ${where}\n`);
    const hidden = skills.filter((skill) => hiddenReason(skill) !== undefined);
    if (hidden.length > 0) {
      io.stdout(
        `\nHidden from the model (your code can still load them):\n${hidden.map((skill) => `  ${skill.name}: ${hiddenReason(skill)}\n`).join('')}`,
      );
    }
  }
  if (requirements.size > 0) {
    const lines = [...requirements].map(([name, { requirements: needs, check }]) => {
      const state = check.met ? 'met' : `MISSING ${check.missingNames.join(', ')}`;
      const image = readSkillImage(skills.find((skill) => skill.name === name) ?? {}).image;
      const described = [image === undefined ? '' : `image: ${image}`, describeRequirements(needs)].filter(Boolean);
      return `  ${name}: ${described.join('; ')} (${state})\n`;
    });
    io.stdout(
      `\nRequirements (checked in the ${checkedIn} runtime as skill_run sees them with default options):\n${lines.join('')}`,
    );
  }
  if (report.skipped.length > 0) {
    io.stdout(`\nSkipped:\n${report.skipped.map((entry) => `  ${entry.path}: ${entry.reason}\n`).join('')}`);
  }
  if (report.shadowed.length > 0) {
    const sorted = [...report.shadowed].sort((left, right) => compareNames(left.name, right.name));
    io.stdout(
      `\nShadowed (an earlier skill has the name):\n${sorted.map((entry) => `  ${entry.name}: ${entry.path} (uses ${entry.winner})\n`).join('')}`,
    );
  }
  for (const skill of skills)
    for (const warning of skill.warnings) io.stderr(warningLine(io, `${skill.name}: ${warning}`));
  return 0;
}

export const listCommand: CliCommand = {
  name: 'list',
  usage,
  run,
};
