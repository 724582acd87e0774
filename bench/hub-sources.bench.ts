// Fetching a 30-skill repository through the hub sources, from a GitHub-shaped archive server and
// from real `git http-backend`, both on loopback, against `git clone --depth 1` of the same
// repository plus a copy of its skills folder (what a script without skillbox would do). Each
// source's skills are written to a fresh folder so all three end with the same files on disk.
// Then the whole install as a user runs it, one process each, into a fresh project from the same
// loopback git server: skillbox's `addSkills` (built dist/: `npm run build` first; checks, scan,
// lock) against the `skills` CLI (the dev dependency, offline: telemetry off, a plain git URL so it
// asks no other service) installing the same repository into ./.agents/skills. Figures only.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { FetchedFile, FetchedSkill, SkillSource } from '../src/hub/skill-source.js';
import { createGitSource } from '../src/hub/sources/git-source.js';
import { createGitHubSource } from '../src/hub/sources/github-source.js';
import { writeTree } from '../src/hub/testing/conformance-skill-tree.js';
import { startGitHttpServer } from '../test/support/git-http-server.js';
import { startGitHubShapedServer } from '../test/support/github-shaped-server.js';
import { formatSpread, interleavedTimes, pairedRatio, quick, reportRatio, spreadOf } from './bench-support.js';

const run$ = promisify(execFile);
const skillCount = 30;

/** 30 skills of 6 files each (SKILL.md, a script, three documents, a 16 KiB binary): about 1 MiB. */
function repositoryTree(): FetchedFile[] {
  const files: FetchedFile[] = [{ path: 'README.md', bytes: Buffer.from('# Bench skills\n'), executable: false }];
  for (let index = 0; index < skillCount; index += 1) {
    const name = `skill-${String(index).padStart(2, '0')}`;
    const text = (body: string) => Buffer.from(body);
    files.push(
      {
        path: `skills/${name}/SKILL.md`,
        bytes: text(`---\nname: ${name}\ndescription: Bench skill ${index}.\n---\n\nBody.\n`),
        executable: false,
      },
      { path: `skills/${name}/scripts/run.sh`, bytes: text('#!/bin/sh\necho run\n'), executable: true },
      ...[1, 2, 3].map((doc) => ({
        path: `skills/${name}/docs/guide-${doc}.md`,
        bytes: text(`# Guide ${doc}\n\n${'Lorem ipsum dolor sit amet. '.repeat(150)}\n`),
        executable: false,
      })),
      { path: `skills/${name}/assets/data.bin`, bytes: randomBytes(16 * 1024), executable: false },
    );
  }
  return files;
}

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const builtHub = join(repositoryRoot, 'dist/hub/index.js');
const skillsCliPackage = createRequire(import.meta.url).resolve('skills/package.json');
const skillsCli = join(dirname(skillsCliPackage), 'bin/cli.mjs');

/** What `skillbox add URL` does, run as its own process like the skills CLI (the CLI itself refuses http:// git). */
const skillboxAddScript = `
const { addSkills, createGitSource, createSourceRegistry } = await import(process.argv[1]);
const registry = createSourceRegistry([createGitSource({ allowInsecureTransports: true })]);
const installed = await addSkills(process.argv[2], {}, { registry, cwd: process.argv[3], review: () => true });
if (installed.length !== ${skillCount}) throw new Error('installed ' + installed.length);
`;

/** The skills CLI offline: no telemetry, no prompts. */
const skillsCliEnvironment = { ...process.env, DISABLE_TELEMETRY: '1', DO_NOT_TRACK: '1', CI: '1', NO_COLOR: '1' };

async function expectInstalled(project: string): Promise<void> {
  const installed = await readdir(join(project, '.agents/skills'));
  if (installed.length !== skillCount) throw new Error(`${project}: ${installed.length} skills installed`);
}

async function fetchAndWrite(source: SkillSource, reference: string, target: string): Promise<void> {
  const skills: readonly FetchedSkill[] = await source.fetch(await source.resolve(reference));
  if (skills.length !== skillCount) throw new Error(`expected ${skillCount} skills, got ${skills.length}`);
  for (const skill of skills) await writeTree(join(target, skill.name), skill.files);
}

export async function run(): Promise<void> {
  const rounds = quick ? 3 : 12;
  const tree = repositoryTree();
  const github = await startGitHubShapedServer();
  const git = await startGitHttpServer();
  const scratch = await mkdtemp(join(tmpdir(), 'skillbox-bench-hub-'));
  try {
    github.publish('bench/skills', tree);
    await git.publish('bench', tree);
    const githubSource = createGitHubSource({ apiBaseUrl: github.apiBaseUrl, archiveOrigins: [github.archiveOrigin] });
    const gitSource = createGitSource({ allowInsecureTransports: true });
    let counter = 0;
    const fresh = () => join(scratch, String((counter += 1)));
    const built = existsSync(builtHub);
    if (!built)
      console.log('hub-sources: dist/ is missing, so the whole-install rows are left out; run `npm run build`');
    const processes: Record<string, () => Promise<void>> = {
      'skillbox add (process)': async () => {
        const project = fresh();
        await run$(
          process.execPath,
          ['--input-type=module', '-e', skillboxAddScript, pathToFileURL(builtHub).href, git.url('bench'), project],
          { cwd: scratch },
        );
        await expectInstalled(project);
      },
      'skills CLI add (process)': async () => {
        const project = fresh();
        await mkdir(project, { recursive: true });
        await run$(process.execPath, [skillsCli, 'add', git.url('bench'), '-y', '--agent', 'universal'], {
          cwd: project,
          env: skillsCliEnvironment,
        });
        await expectInstalled(project);
      },
    };
    const times = await interleavedTimes<string>(
      {
        ...(built ? processes : {}),
        'github source (one archive)': () => fetchAndWrite(githubSource, 'bench/skills', fresh()),
        'git source (shallow fetch)': () => fetchAndWrite(gitSource, git.url('bench'), fresh()),
        'git clone --depth 1 + copy': async () => {
          const clone = fresh();
          await run$('git', ['clone', '--quiet', '--depth', '1', git.url('bench'), clone]);
          await cp(join(clone, 'skills'), fresh(), { recursive: true });
        },
      },
      rounds,
      // A quick run has no warm-up round: every row but two is a process or a clone of its own, and
      // the two in-process fetches' first, cold round is one sample of three the median sets aside.
      quick ? 0 : 1,
    );
    const bytes = tree.reduce((sum, file) => sum + file.bytes.length, 0);
    const { stdout: gitVersion } = await run$('git', ['--version']);
    const skillsVersion = (JSON.parse(await readFile(skillsCliPackage, 'utf8')) as { version: string }).version;
    console.log(
      `${skillCount} skills, ${tree.length} files, ${(bytes / 1024).toFixed(0)} KiB; ${rounds} rounds; node ${process.version}, ${gitVersion.trim()}, skills CLI ${skillsVersion}; load average ${loadavg()[0]?.toFixed(1)}`,
    );
    for (const [name, values] of Object.entries(times))
      console.log(`  ${name.padEnd(30)} ${formatSpread(spreadOf(values as number[]), 0, ' ms')}`);
    const base = times['git clone --depth 1 + copy'] as number[];
    for (const name of ['github source (one archive)', 'git source (shallow fetch)'] as const)
      reportRatio({
        benchmark: 'hub-sources',
        comparison: `${name} / git clone --depth 1 + copy`,
        ratio: pairedRatio(times[name] as number[], base),
        goal: '<= 1.5',
      });
    const skillboxAdd = times['skillbox add (process)'];
    const skillsCliAdd = times['skills CLI add (process)'];
    if (skillboxAdd !== undefined && skillsCliAdd !== undefined) {
      reportRatio({
        benchmark: 'hub-sources',
        comparison: 'skillbox add (process) / skills CLI add (process)',
        ratio: pairedRatio(skillboxAdd, skillsCliAdd),
        goal: '<= 1.5',
      });
      reportRatio({
        benchmark: 'hub-sources',
        comparison: 'skillbox add (process) / git clone --depth 1 + copy',
        ratio: pairedRatio(skillboxAdd, base),
      });
    }
  } finally {
    await github.close();
    await git.close();
    await rm(scratch, { recursive: true, force: true });
  }
}
