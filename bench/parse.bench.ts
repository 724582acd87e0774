// Parsing SKILL.md files: skillbox's parseSkillMarkdown (fast frontmatter reader, the YAML library
// only for shapes it refuses) against the same parser forced through the YAML library, a
// decode-only floor, and the frontmatter parsers of two npm peers (bash-tool's parseFrontmatter on
// the text; deepagents' exported parseSkillMetadata, which reads the file itself, so it is set
// against a read-and-decode floor). Each row runs in its own process so "cold" (the first pass over
// every file, code not yet optimised: what a listing at start-up pays) is that parser's alone;
// "warm" is the median of five more passes. Figures only; nothing fails on a number.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { corpusRoot, measureInFreshProcess, quick } from './bench-support.js';

const here = fileURLToPath(import.meta.url);
const corpus = corpusRoot();
const parsers = ['decode floor', 'skillbox', 'skillbox full YAML', 'bash-tool', 'read floor', 'deepagents'] as const;
type Parser = (typeof parsers)[number];
const generatedSkills = quick ? 1_000 : 10_000;
const warmRuns = quick ? 3 : 5;

interface Measurement {
  files: number;
  /** Files the parser returned a skill for (no error, not null). */
  parsed: number;
  coldMs: number;
  warmMs: number;
}

async function skillFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name === 'SKILL.md')
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** One parser as a function of a file's index; true when it gave a skill. */
async function parserFunction(parser: Parser, files: string[], bytes: Buffer[]): Promise<(index: number) => boolean> {
  switch (parser) {
    case 'decode floor':
      return (index) => (bytes[index] as Buffer).toString('utf8').length >= 0;
    case 'read floor':
      return (index) => readFileSync(files[index] as string).toString('utf8').length >= 0;
    case 'skillbox':
    case 'skillbox full YAML': {
      const { parseSkillMarkdown, parseSkillMarkdownWithFullYaml } = await import('../src/format/parse-skill.js');
      const parse = parser === 'skillbox' ? parseSkillMarkdown : parseSkillMarkdownWithFullYaml;
      return (index) => {
        const file = files[index] as string;
        try {
          parse(bytes[index] as Buffer, { file, folderName: basename(dirname(file)) });
          return true;
        } catch {
          return false;
        }
      };
    }
    case 'bash-tool': {
      // Not exported by the package: imported from its file, as the listing benchmark does.
      const module = pathToFileURL(
        join(dirname(fileURLToPath(import.meta.resolve('bash-tool'))), 'skills', 'parser.js'),
      ).href;
      const { parseFrontmatter } = (await import(module)) as { parseFrontmatter: (content: string) => unknown };
      return (index) => parseFrontmatter((bytes[index] as Buffer).toString('utf8')) !== null;
    }
    case 'deepagents': {
      const { parseSkillMetadata } = await import('deepagents');
      // It reports every problem on the console; the figures are what matter here.
      console.warn = () => undefined;
      return (index) => parseSkillMetadata(files[index] as string, 'project') !== null;
    }
  }
}

/** Child side: one parser over one dataset, figures printed as one JSON line. */
async function measureInChild(parser: Parser, root: string): Promise<void> {
  const files = await skillFiles(root);
  const bytes = files.map((file) => readFileSync(file));
  const parse = await parserFunction(parser, files, bytes);
  const pass = (): { ms: number; parsed: number } => {
    const started = performance.now();
    let parsed = 0;
    for (let index = 0; index < files.length; index += 1) if (parse(index)) parsed += 1;
    return { ms: performance.now() - started, parsed };
  };
  const cold = pass();
  const warm: number[] = [];
  for (let run = 0; run < warmRuns; run += 1) warm.push(pass().ms);
  warm.sort((left, right) => left - right);
  const measurement: Measurement = {
    files: files.length,
    parsed: cold.parsed,
    coldMs: cold.ms,
    warmMs: warm[Math.floor(warm.length / 2)] ?? 0,
  };
  process.stdout.write(`${JSON.stringify(measurement)}\n`);
}

function measure(parser: Parser, root: string): Measurement | string {
  return measureInFreshProcess<Measurement>(here, 'SKILLBOX_PARSE_BENCH', { parser, root });
}

/** Skills in the shapes real ones have: plain, quoted and folded descriptions, metadata, lists. */
function generatedSkill(index: number): string {
  const name = `skill-${String(index).padStart(5, '0')}`;
  const task = `Handles task number ${index}, reads the inputs, checks them and writes a short report.`;
  const description = [
    `description: ${task} Use when asked about task ${index}.`,
    `description: '${task} Use when asked about "task ${index}".'`,
    `description: >-\n  ${task}\n  Use when asked about task ${index}.`,
    `description: "${task} Use when: asked about task ${index}."`,
  ][index % 4];
  const extra = [
    'license: MIT',
    'metadata:\n  author: example\n  version: "1.0"',
    'allowed-tools:\n  - Read\n  - Bash(git:*)',
    'disable-model-invocation: true\nmetadata:\n  internal: true',
  ][index % 4];
  return `---\nname: ${name}\n${description}\n${extra}\n---\n# ${name}\n\n${'Step by step instructions for the task. '.repeat(20)}\n`;
}

async function generateTree(count: number): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'skillbox-parse-bench-'));
  for (let start = 0; start < count; start += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, count - start) }, async (_, offset) => {
        const folder = join(root, `skill-${String(start + offset).padStart(5, '0')}`);
        await mkdir(folder, { recursive: true });
        await writeFile(join(folder, 'SKILL.md'), generatedSkill(start + offset));
      }),
    );
  }
  return root;
}

function printDataset(title: string, root: string): void {
  console.log(`\n${title}`);
  console.log(
    'parser             | files | parsed | cold ms | cold us/file | warm us/file | cold vs floor | warm vs floor',
  );
  const results = new Map<Parser, Measurement | string>();
  for (const parser of parsers) results.set(parser, measure(parser, root));
  for (const parser of parsers) {
    const result = results.get(parser);
    if (typeof result !== 'object') {
      console.log(`${parser.padEnd(18)} | ${result ?? 'not run'}`);
      continue;
    }
    // deepagents reads each file itself, so its floor reads too; every other row starts from bytes in memory.
    const floor = results.get(parser === 'deepagents' || parser === 'read floor' ? 'read floor' : 'decode floor');
    const ratio = (value: number, base: number | undefined): string =>
      base !== undefined && base > 0 ? `${(value / base).toFixed(2)}x` : 'n/a';
    const perFile = (ms: number): string => ((ms * 1000) / Math.max(result.files, 1)).toFixed(1);
    console.log(
      [
        parser.padEnd(18),
        String(result.files).padStart(5),
        String(result.parsed).padStart(6),
        result.coldMs.toFixed(1).padStart(7),
        perFile(result.coldMs).padStart(12),
        perFile(result.warmMs).padStart(12),
        ratio(result.coldMs, typeof floor === 'object' ? floor.coldMs : undefined).padStart(13),
        ratio(result.warmMs, typeof floor === 'object' ? floor.warmMs : undefined).padStart(13),
      ].join(' | '),
    );
  }
}

/** The pathological `a: b: c: ...` description: one YAML error per colon in the library. */
async function printColonLine(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'skillbox-parse-bench-colon-'));
  try {
    await mkdir(join(root, 'colons'));
    const line = Array.from({ length: 200 }, (_, index) => `k${index}`).join(': ');
    await writeFile(join(root, 'colons', 'SKILL.md'), `---\nname: colons\ndescription: ${line}\n---\nBody\n`);
    console.log('\none SKILL.md whose description is `k0: k1: ... k199` (200 colons), first parse in a fresh process');
    for (const parser of ['skillbox', 'skillbox full YAML'] as const) {
      const result = measure(parser, root);
      console.log(
        `${parser.padEnd(18)} | ${typeof result === 'object' ? `cold ${result.coldMs.toFixed(1)} ms, warm ${result.warmMs.toFixed(2)} ms` : result}`,
      );
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  console.log('Parsing SKILL.md files already in memory; each row is a separate process.');
  console.log(
    'decode floor = Buffer#toString("utf8") of each file; read floor = readFileSync + decode (for deepagents, which reads the file itself).',
  );
  console.log(
    'skillbox = parseSkillMarkdown (fast frontmatter reader, YAML library for the shapes it refuses); skillbox full YAML = every frontmatter through the YAML library.',
  );
  console.log(
    'bash-tool = its parseFrontmatter (regex + yaml.parse, name and description only); deepagents = its exported parseSkillMetadata (stat + read + yaml.parse + checks).',
  );
  if (corpus === undefined)
    console.log('no corpus (set SKILLBOX_CORPUS or put shared/corpus beside the repository): generated files only');
  else printDataset('corpus (636 SKILL.md files in 6 collections)', corpus);
  // Every row is a process start-up: --quick parses generated files only where there is no corpus.
  if (quick && corpus !== undefined) {
    await printColonLine();
    return;
  }
  const generated = await generateTree(generatedSkills);
  try {
    printDataset(
      `generated (${generatedSkills} skills: plain, quoted, folded and colon-repaired descriptions; metadata; lists)`,
      generated,
    );
  } finally {
    await rm(generated, { recursive: true, force: true });
  }
  await printColonLine();
}

const child = process.env.SKILLBOX_PARSE_BENCH;
if (child !== undefined) {
  const { parser, root } = JSON.parse(child) as { parser: Parser; root: string };
  await measureInChild(parser, root);
}
