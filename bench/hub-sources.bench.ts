// Fetching a 30-skill repository through the hub sources, from a GitHub-shaped archive server and
// from real `git http-backend`, both on loopback, against `git clone --depth 1` of the same
// repository plus a copy of its skills folder (what a script without skillbox would do). Each
// source's skills are written to a fresh folder so all three end with the same files on disk.
// Figures only.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

async function fetchAndWrite(source: SkillSource, reference: string, target: string): Promise<void> {
  const skills: readonly FetchedSkill[] = await source.fetch(await source.resolve(reference));
  if (skills.length !== skillCount) throw new Error(`expected ${skillCount} skills, got ${skills.length}`);
  for (const skill of skills) await writeTree(join(target, skill.name), skill.files);
}

export async function run(): Promise<void> {
  const rounds = quick ? 4 : 12;
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
    const times = await interleavedTimes(
      {
        'github source (one archive)': () => fetchAndWrite(githubSource, 'bench/skills', fresh()),
        'git source (shallow fetch)': () => fetchAndWrite(gitSource, git.url('bench'), fresh()),
        'git clone --depth 1 + copy': async () => {
          const clone = fresh();
          await run$('git', ['clone', '--quiet', '--depth', '1', git.url('bench'), clone]);
          await cp(join(clone, 'skills'), fresh(), { recursive: true });
        },
      },
      rounds,
    );
    const bytes = tree.reduce((sum, file) => sum + file.bytes.length, 0);
    console.log(`${skillCount} skills, ${tree.length} files, ${(bytes / 1024).toFixed(0)} KiB; ${rounds} rounds`);
    for (const [name, values] of Object.entries(times))
      console.log(`  ${name.padEnd(30)} ${formatSpread(spreadOf(values as number[]), 0, ' ms')}`);
    const base = times['git clone --depth 1 + copy'];
    for (const name of ['github source (one archive)', 'git source (shallow fetch)'] as const)
      reportRatio({
        benchmark: 'hub-sources',
        comparison: `${name} / git clone --depth 1 + copy`,
        ratio: pairedRatio(times[name], base),
        goal: '<= 1.5',
      });
  } finally {
    await github.close();
    await git.close();
    await rm(scratch, { recursive: true, force: true });
  }
}
