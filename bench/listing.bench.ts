// Listing skills: skillbox's FsSkillRepository against the floor (a bare synchronous walk of the
// folders skillbox reads plus reading every SKILL.md whole, no parsing; the same reading into one
// reused buffer; and the same through the promise API) and against the skill loaders of three npm peers (deepagents'
// listSkills, bash-tool's discoverSkills, Mastra's Workspace skills), on the real corpus and on a generated tree of 10,000
// skills (and, with --baseline=<ref>, FsSkillRepository of that commit). Each measurement runs in
// its own child process so peak memory is that loader's alone; the loaders take turns, round by
// round, and each figure is the median of the rounds with the ratio to the floor taken per round.
// "cold" is the first listing in a fresh process (the OS page cache is warm for everyone alike);
// "warm" is the median of three more listings in the same process. --quick: the corpus only, three
// rounds, one warm listing, no "thread pool" floor (about 20 s on an idle machine). Figures only;
// nothing fails on a number.
import type { Dirent } from 'node:fs';
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  baselineLabel,
  corpusRoot,
  formatSpread,
  importBaseline,
  measureInFreshProcess,
  packageVersion,
  pairedRatio,
  quick,
  reportRatio,
  spreadOf,
} from './bench-support.js';
import { generateSkillTree } from './generated-skills.js';

const here = fileURLToPath(import.meta.url);
const allLoaders = [
  'floor',
  'floor, one buffer',
  'floor, thread pool',
  'skillbox',
  'baseline',
  'deepagents',
  'bash-tool',
  'mastra',
] as const;
type Loader = (typeof allLoaders)[number];
const generatedSkills = 10_000;
// --quick: one warm listing per sample (deepagents re-reads every file each time, a second or more
// under load), the "thread pool" floor left out (a reference figure, not a goal), three rounds.
const warmRuns = quick ? 1 : 3;

interface Measurement {
  skills: number;
  coldMs: number;
  warmMs: number;
  /** Peak resident memory of the child minus its resident memory before the first listing. */
  peakBytes: number;
}

/**
 * The floor: a bare walk that finds and reads what skillbox lists. It reads every folder down to
 * the skill folders (a folder holding a SKILL.md is a skill and owns everything below it, so the
 * walk stops there) and reads each SKILL.md whole, deciding nothing else. The goal was set against
 * it; skillbox now reads fewer folders than it does (a skill folder is known by an lstat of its
 * SKILL.md, scan-skill-root.ts), which is why it can list in less time than this floor. Synchronous calls, as Node's
 * quickest way to make many small calls on a warm page cache: each promise call is a round trip
 * through libuv's thread pool, which costs more than the call itself (the "thread pool" floor below
 * shows by how much).
 */
function floorSkillFiles(root: string): string[] {
  const files: string[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    const entries = readdirSync(folder, { withFileTypes: true });
    if (entries.some((entry) => entry.name === 'SKILL.md' && entry.isFile())) {
      files.push(join(folder, 'SKILL.md'));
      continue;
    }
    for (const entry of entries) if (entry.isDirectory()) pending.push(join(folder, entry.name));
  }
  return files;
}

/**
 * The floor's walk with every SKILL.md read into one buffer, reused (open, fstat for the size,
 * read, close), as skillbox reads them: on this machine a page of memory touched for the first
 * time costs about 15 us, and reading each file into a buffer of its own, as `readFileSync` does,
 * touches as many fresh pages as the files fill. The goal is set against the `readFileSync` floor;
 * this one is how close that floor is to the least a reader can do.
 */
function oneBufferFloor(root: string): number {
  const files = floorSkillFiles(root);
  let buffer = Buffer.allocUnsafe(64 * 1024);
  for (const file of files) {
    const descriptor = openSync(file, 'r');
    try {
      const size = fstatSync(descriptor).size;
      if (buffer.length < size) buffer = Buffer.allocUnsafe(size);
      let filled = 0;
      while (filled < size) {
        const read = readSync(descriptor, buffer, filled, size - filled, filled);
        if (read === 0) break;
        filled += read;
      }
    } finally {
      closeSync(descriptor);
    }
  }
  return files.length;
}

/** The same walk and reads through the promise API: each level's folders read at once, 64 files in flight. */
async function threadPoolFloor(root: string): Promise<number> {
  const files: string[] = [];
  let level = [root];
  while (level.length > 0) {
    const listings: Dirent[][] = await Promise.all(level.map((folder) => readdir(folder, { withFileTypes: true })));
    const next: string[] = [];
    listings.forEach((entries, index) => {
      const folder = level[index] as string;
      if (entries.some((entry) => entry.name === 'SKILL.md' && entry.isFile())) {
        files.push(join(folder, 'SKILL.md'));
        return;
      }
      for (const entry of entries) if (entry.isDirectory()) next.push(join(folder, entry.name));
    });
    level = next;
  }
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) await readFile(files[next++] as string);
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  return files.length;
}

/**
 * Every folder holding a SKILL.md directly, nested ones included: what the peers' sources are
 * worked out from (not timed).
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
    for (
      let parent = dirname(folder);
      parent.length >= root.length && parent !== dirname(parent);
      parent = dirname(parent)
    ) {
      if (skills.has(parent)) return true;
    }
    return false;
  };
  const topLevel = folders.filter((folder) => !insideAnother(folder));
  return [...new Set(topLevel.map((folder) => dirname(folder)))].sort();
}

/** What a child is asked to measure; `sources` are the peers' folders, worked out once by the parent. */
interface ChildRequest {
  loader: Loader;
  root: string;
  sources: string[];
}

async function listingFunction({ loader, root, sources }: ChildRequest): Promise<() => Promise<number>> {
  switch (loader) {
    case 'floor':
      return async () => {
        const files = floorSkillFiles(root);
        for (const file of files) readFileSync(file);
        return files.length;
      };
    case 'floor, one buffer':
      return async () => oneBufferFloor(root);
    case 'floor, thread pool':
      return () => threadPoolFloor(root);
    case 'skillbox':
    case 'baseline': {
      const { FsSkillRepository } =
        loader === 'skillbox'
          ? await import('../src/repository/fs-skill-repository.js')
          : (await importBaseline<typeof import('../src/repository/fs-skill-repository.js')>(
              'repository/fs-skill-repository.ts',
            ))!;
      let repository: Awaited<ReturnType<typeof FsSkillRepository.open>> | undefined;
      return async () => {
        repository ??= await FsSkillRepository.open({ roots: [root] });
        return (await repository.list()).length;
      };
    }
    case 'deepagents': {
      const { listSkills } = await import('deepagents');
      return async () => {
        const names = new Set<string>();
        for (const source of sources)
          for (const skill of listSkills({ projectSkillsDir: source })) names.add(skill.name);
        return names.size;
      };
    }
    case 'mastra': {
      // Mastra's skills live in a Workspace; LocalSkillSource reads the local disk, given the same
      // folders as the other peers. Its list() keeps what it found (re-checking after a 30 s cooldown),
      // so its "warm" figure is a cache read, not a re-scan.
      const { Workspace, LocalSkillSource } = await import('@mastra/core/workspace');
      let skills: InstanceType<typeof Workspace>['skills'];
      return async () => {
        skills ??= new Workspace({ skillSource: new LocalSkillSource(), skills: sources }).skills;
        return (await skills!.list()).length;
      };
    }
    case 'bash-tool': {
      // discoverSkills is bash-tool's loader behind experimental_createSkillTool; the package does
      // not export it, so it is imported from its file (the tool itself also copies every file).
      const parser = pathToFileURL(
        join(dirname(fileURLToPath(import.meta.resolve('bash-tool'))), 'skills', 'parser.js'),
      ).href;
      const { discoverSkills } = (await import(parser)) as {
        discoverSkills: (options: {
          skillsDirectory: string;
          sandboxDestination: string;
        }) => Promise<{ name: string }[]>;
      };
      return async () => {
        const names = new Set<string>();
        for (const source of sources)
          for (const skill of await discoverSkills({ skillsDirectory: source, sandboxDestination: '/skills' }))
            names.add(skill.name);
        return names.size;
      };
    }
  }
}

/** Child side: one loader on one root, figures printed as one JSON line. */
async function measureInChild(request: ChildRequest): Promise<void> {
  const list = await listingFunction(request);
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
  const measurement: Measurement = {
    skills,
    coldMs,
    warmMs: warm[Math.floor(warm.length / 2)] ?? 0,
    peakBytes: Math.max(peakBytes, 0),
  };
  process.stdout.write(`${JSON.stringify(measurement)}\n`);
}

function measure(request: ChildRequest): Measurement | string {
  return measureInFreshProcess<Measurement>(here, 'SKILLBOX_LISTING_BENCH', request);
}

const megabytes = (value: number) => (value / (1024 * 1024)).toFixed(1);

async function printDataset(title: string, root: string, rounds: number, withPeers = true): Promise<void> {
  const loaders = allLoaders.filter(
    (loader) =>
      (loader !== 'baseline' || baselineLabel() !== undefined) &&
      (loader !== 'floor, thread pool' || !quick) &&
      (withPeers ||
        loader === 'floor' ||
        loader === 'floor, one buffer' ||
        loader === 'floor, thread pool' ||
        loader === 'skillbox' ||
        loader === 'baseline'),
  );
  const sources = withPeers ? await peerSources(root) : [];
  const name = (loader: Loader) => (loader === 'baseline' ? baselineLabel()! : loader);
  console.log(`\n${title} (${root}); ${rounds} rounds`);
  const samples = new Map<Loader, Measurement[]>(loaders.map((loader) => [loader, []]));
  const failures = new Map<Loader, string>();
  for (let round = 0; round < rounds; round += 1) {
    for (let turn = 0; turn < loaders.length; turn += 1) {
      const loader = loaders[(round + turn) % loaders.length]!;
      const result = measure({ loader, root, sources });
      if (typeof result === 'string') failures.set(loader, result);
      else samples.get(loader)!.push(result);
    }
  }
  const floor = samples.get('floor')!;
  console.log(
    'loader             | skills | cold ms             | warm ms             | peak MB | cold / floor        | warm / floor        | peak / floor',
  );
  for (const loader of loaders) {
    const results = samples.get(loader)!;
    if (results.length < rounds) {
      console.log(`${name(loader).padEnd(18)} | ${failures.get(loader) ?? 'not run'}`);
      continue;
    }
    const cold = pairedRatio(
      results.map((result) => result.coldMs),
      floor.map((result) => result.coldMs),
    );
    const warm = pairedRatio(
      results.map((result) => result.warmMs),
      floor.map((result) => result.warmMs),
    );
    const peak = pairedRatio(
      results.map((result) => result.peakBytes),
      floor.map((result) => Math.max(result.peakBytes, 1)),
    );
    console.log(
      [
        name(loader).padEnd(18),
        String(results[0]!.skills).padStart(6),
        formatSpread(spreadOf(results.map((result) => result.coldMs)), 1).padEnd(19),
        formatSpread(spreadOf(results.map((result) => result.warmMs)), 1).padEnd(19),
        megabytes(spreadOf(results.map((result) => result.peakBytes)).median).padStart(7),
        formatSpread(cold).padEnd(19),
        formatSpread(warm).padEnd(19),
        formatSpread(peak),
      ].join(' | '),
    );
    if (loader !== 'floor') {
      reportRatio({
        benchmark: 'listing',
        comparison: `${title.split(' (')[0]}: ${name(loader)} cold / floor`,
        ratio: cold,
        goal: loader === 'skillbox' ? '<= 1.3, lowest of the loaders' : undefined,
      });
      reportRatio({
        benchmark: 'listing',
        comparison: `${title.split(' (')[0]}: ${name(loader)} warm / floor`,
        ratio: warm,
      });
    }
  }
  const oneBuffer = samples.get('floor, one buffer');
  const skillbox = samples.get('skillbox');
  if (oneBuffer?.length === rounds && skillbox?.length === rounds) {
    const ratio = pairedRatio(
      skillbox.map((result) => result.coldMs),
      oneBuffer.map((result) => result.coldMs),
    );
    console.log(`skillbox cold / "floor, one buffer" cold: ${formatSpread(ratio)}`);
    reportRatio({
      benchmark: 'listing',
      comparison: `${title.split(' (')[0]}: skillbox cold / floor with one reused buffer`,
      ratio,
    });
  }
}

export async function run(): Promise<void> {
  console.log('Skill listing: each sample is a separate process; "skills" is what each loader found.');
  console.log(
    `floor = a synchronous readdir of every folder down to the skill folders (a skill folder owns its subtree; skillbox itself knows a skill folder by one lstat of its SKILL.md and reads fewer folders) plus reading every SKILL.md found (readFileSync), with no parsing or checks; "floor, one buffer" reads each file into one reused buffer instead; "floor, thread pool" does the same as the floor through the promise API${quick ? ' (full run only)' : ''}.`,
  );
  console.log(
    'The peers scan one level, so they get every folder that directly holds skills (listed for them by the floor walk).',
  );
  console.log(
    `peers: deepagents ${packageVersion('deepagents')}, bash-tool ${packageVersion('bash-tool')}, Mastra (@mastra/core) ${packageVersion('@mastra/core')}`,
  );
  console.log(
    'skillbox warm = list() again on the same repository (one stat per SKILL.md); floor and peers have no cache and redo the work.',
  );
  const corpus = corpusRoot();
  if (corpus === undefined)
    console.log('no corpus (set SKILLBOX_CORPUS or put shared/corpus beside the repository): generated tree only');
  else await printDataset('corpus (636 SKILL.md files in 6 collections)', corpus, quick ? 3 : 11);
  // --quick leaves the generated tree to the full run: each sample is a process start-up, and the
  // corpus rounds alone (15 of them, 18 with --baseline) are what a quick run has time for.
  if (quick) {
    console.log(`\ngenerated tree (${generatedSkills} skills): full run only`);
    return;
  }
  const generated = await generateSkillTree(generatedSkills, 'skillbox-listing-bench-');
  try {
    await printDataset(`generated tree (${generatedSkills} skills, SKILL.md + docs/guide.md each)`, generated, 7);
  } finally {
    await rm(generated, { recursive: true, force: true });
  }
}

const child = process.env.SKILLBOX_LISTING_BENCH;
if (child !== undefined) {
  await measureInChild(JSON.parse(child) as ChildRequest);
}
