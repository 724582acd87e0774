// Listing skills: skillbox's FsSkillRepository against the floor (a bare recursive readdir plus
// reading every SKILL.md, no parsing) and against the skill loaders of two npm peers (deepagents'
// listSkills, bash-tool's discoverSkills), on the real corpus and on a generated tree of 10,000
// skills. Each measurement runs in its own child process so peak memory is that loader's alone.
// "cold" is the first listing in a fresh process (the OS page cache is warm for everyone alike);
// "warm" is the median of three more listings in the same process. Figures only; nothing fails on
// a number.
import type { Dirent } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { measureInFreshProcess } from './bench-support.js';

const here = fileURLToPath(import.meta.url);
const corpus = fileURLToPath(new URL('../../shared/corpus/', import.meta.url));
const loaders = ['floor', 'skillbox', 'deepagents', 'bash-tool'] as const;
type Loader = (typeof loaders)[number];
const generatedSkills = 10_000;
const warmRuns = 3;

interface Measurement {
  skills: number;
  coldMs: number;
  warmMs: number;
  /** Peak resident memory of the child minus its resident memory before the first listing. */
  peakBytes: number;
}

/**
 * Every folder holding a SKILL.md directly: the floor's walk. It is the least work that can find
 * them (a readdir per folder, each level read in parallel, no links followed, nothing decided),
 * written out because Node 20's `readdir({ recursive: true })` reads one folder at a time.
 */
async function skillFolders(root: string): Promise<string[]> {
  const found: string[] = [];
  let level = [root];
  while (level.length > 0) {
    const listings: Dirent[][] = await Promise.all(level.map((folder) => readdir(folder, { withFileTypes: true })));
    const next: string[] = [];
    listings.forEach((entries, index) => {
      const folder = level[index] as string;
      for (const entry of entries) {
        if (entry.isDirectory()) next.push(join(folder, entry.name));
        else if (entry.name === 'SKILL.md' && entry.isFile()) found.push(folder);
      }
    });
    level = next;
  }
  return found;
}

/**
 * The peers scan one level (each child folder with a SKILL.md), so they are given every folder
 * that directly holds skill folders: the sources a user of theirs would have to configure.
 */
async function peerSources(root: string): Promise<string[]> {
  const folders = await skillFolders(root);
  const skills = new Set(folders);
  // A skill nested in another skill is a bundled file for skillbox; leave it out for the peers too.
  const insideAnother = (folder: string): boolean => {
    for (let parent = dirname(folder); parent.length >= root.length && parent !== dirname(parent); parent = dirname(parent)) {
      if (skills.has(parent)) return true;
    }
    return false;
  };
  const topLevel = folders.filter((folder) => !insideAnother(folder));
  return [...new Set(topLevel.map((folder) => dirname(folder)))].sort();
}

async function listingFunction(loader: Loader, root: string): Promise<() => Promise<number>> {
  switch (loader) {
    case 'floor':
      return async () => {
        const files = (await skillFolders(root)).map((folder) => join(folder, 'SKILL.md'));
        let next = 0;
        const worker = async (): Promise<void> => {
          while (next < files.length) await readFile(files[next++] as string);
        };
        await Promise.all(Array.from({ length: 64 }, worker));
        return files.length;
      };
    case 'skillbox': {
      const { FsSkillRepository } = await import('../src/repository/fs-skill-repository.js');
      let repository: Awaited<ReturnType<typeof FsSkillRepository.open>> | undefined;
      return async () => {
        repository ??= await FsSkillRepository.open({ roots: [root] });
        return (await repository.list()).length;
      };
    }
    case 'deepagents': {
      const { listSkills } = await import('deepagents');
      const sources = await peerSources(root);
      return async () => {
        const names = new Set<string>();
        for (const source of sources) for (const skill of listSkills({ projectSkillsDir: source })) names.add(skill.name);
        return names.size;
      };
    }
    case 'bash-tool': {
      // discoverSkills is bash-tool's loader behind experimental_createSkillTool; the package does
      // not export it, so it is imported from its file (the tool itself also copies every file).
      const parser = pathToFileURL(join(dirname(fileURLToPath(import.meta.resolve('bash-tool'))), 'skills', 'parser.js')).href;
      const { discoverSkills } = (await import(parser)) as {
        discoverSkills: (options: { skillsDirectory: string; sandboxDestination: string }) => Promise<{ name: string }[]>;
      };
      const sources = await peerSources(root);
      return async () => {
        const names = new Set<string>();
        for (const source of sources) for (const skill of await discoverSkills({ skillsDirectory: source, sandboxDestination: '/skills' })) names.add(skill.name);
        return names.size;
      };
    }
  }
}

/** Child side: one loader on one root, figures printed as one JSON line. */
async function measureInChild(loader: Loader, root: string): Promise<void> {
  const list = await listingFunction(loader, root);
  const before = process.memoryUsage().rss;
  let started = performance.now();
  const skills = await list();
  const coldMs = performance.now() - started;
  const warm: number[] = [];
  for (let run = 0; run < warmRuns; run += 1) {
    started = performance.now();
    await list();
    warm.push(performance.now() - started);
  }
  warm.sort((left, right) => left - right);
  const peakBytes = process.resourceUsage().maxRSS * 1024 - before;
  const measurement: Measurement = { skills, coldMs, warmMs: warm[Math.floor(warm.length / 2)] ?? 0, peakBytes: Math.max(peakBytes, 0) };
  process.stdout.write(`${JSON.stringify(measurement)}\n`);
}

function measure(loader: Loader, root: string): Measurement | string {
  return measureInFreshProcess<Measurement>(here, 'SKILLBOX_LISTING_BENCH', { loader, root });
}

async function generateTree(count: number): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'skillbox-listing-bench-'));
  for (let start = 0; start < count; start += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, count - start) }, async (_, offset) => {
        const name = `skill-${String(start + offset).padStart(5, '0')}`;
        const folder = join(root, name);
        await mkdir(join(folder, 'docs'), { recursive: true });
        const description = `Handles task number ${start + offset}, reads the inputs, checks them and writes a short report. Use when asked about task ${start + offset}.`;
        await writeFile(join(folder, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\nlicense: MIT\n---\n# ${name}\n\n${'Step by step instructions for the task. '.repeat(20)}\n`);
        await writeFile(join(folder, 'docs', 'guide.md'), `# Guide for ${name}\n`);
      }),
    );
  }
  return root;
}

const format = {
  ms: (value: number) => value.toFixed(1),
  mb: (value: number) => (value / (1024 * 1024)).toFixed(1),
  ratio: (value: number, floor: number) => (floor > 0 ? `${(value / floor).toFixed(2)}x` : 'n/a'),
};

function printDataset(title: string, root: string): void {
  console.log(`\n${title} (${root})`);
  console.log('loader     | skills | cold ms | warm ms | peak MB | cold vs floor | warm vs floor | peak vs floor');
  const results = new Map<Loader, Measurement | string>();
  for (const loader of loaders) results.set(loader, measure(loader, root));
  const floor = results.get('floor');
  for (const loader of loaders) {
    const result = results.get(loader);
    if (typeof result === 'string' || result === undefined) {
      console.log(`${loader.padEnd(10)} | ${result ?? 'not run'}`);
      continue;
    }
    const base = typeof floor === 'object' ? floor : undefined;
    console.log(
      [
        loader.padEnd(10),
        String(result.skills).padStart(6),
        format.ms(result.coldMs).padStart(7),
        format.ms(result.warmMs).padStart(7),
        format.mb(result.peakBytes).padStart(7),
        (base ? format.ratio(result.coldMs, base.coldMs) : 'n/a').padStart(13),
        (base ? format.ratio(result.warmMs, base.warmMs) : 'n/a').padStart(13),
        (base ? format.ratio(result.peakBytes, base.peakBytes) : 'n/a').padStart(13),
      ].join(' | '),
    );
  }
}

export async function run(): Promise<void> {
  console.log('Skill listing: each row is a separate process; "skills" is what each loader found.');
  console.log('floor = a parallel readdir of every folder plus reading every SKILL.md found, with no parsing or checks.');
  console.log('The peers scan one level, so they get every folder that directly holds skills (listed for them by the floor walk).');
  console.log(`skillbox warm = list() again on the same repository (one stat per SKILL.md); floor and peers have no cache and redo the work.`);
  printDataset('corpus (636 SKILL.md files in 6 collections)', corpus);
  const generated = await generateTree(generatedSkills);
  try {
    printDataset(`generated tree (${generatedSkills} skills, SKILL.md + docs/guide.md each)`, generated);
  } finally {
    await rm(generated, { recursive: true, force: true });
  }
}

const child = process.env.SKILLBOX_LISTING_BENCH;
if (child !== undefined) {
  const { loader, root } = JSON.parse(child) as { loader: Loader; root: string };
  await measureInChild(loader, root);
}
