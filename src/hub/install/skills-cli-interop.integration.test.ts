// Interoperability with the vercel `skills` CLI (npm package `skills`, a dev dependency): each tool
// must read, verify and restore what the other installed, offline, from a local folder.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readlink, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsSkillRepository } from '../../repository/fs-skill-repository.js';
import { readSkillsLock } from '../../repository/skills-lock-file.js';
import { createSourceRegistry } from '../source-registry.js';
import { createLocalSkillSource } from '../sources/local-source.js';
import { skillFile, writeTestFiles } from '../testing/skill-folder.js';
import { agentSkillFolders } from './agent-skill-folders.js';
import { addSkills, type InstallerOptions, installFromLock, removeSkill, verifyInstalled } from './installer.js';

const run = promisify(execFile);
const skillsCli = join(dirname(createRequire(import.meta.url).resolve('skills/package.json')), 'bin/cli.mjs');

let project: string;
let options: InstallerOptions;

/** Runs the skills CLI in the project, with telemetry off so nothing leaves the machine. */
async function skills(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [skillsCli, ...args], {
    cwd: project,
    env: { ...process.env, DISABLE_TELEMETRY: '1', DO_NOT_TRACK: '1', CI: '1', NO_COLOR: '1' },
    timeout: 60_000,
  });
  return stdout;
}

async function fileText(path: string): Promise<string> {
  return readFile(join(project, path), 'utf8');
}

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'skillbox-interop-'));
  options = { registry: createSourceRegistry([createLocalSkillSource({ cwd: project })]), cwd: project };
  await writeTestFiles(join(project, 'vendor'), [
    { path: 'SKILL.md', text: skillFile('pdf-tools', 'Fills PDF forms.') },
    { path: 'docs/forms.md', text: '# Forms\n' },
    { path: 'scripts/fill.sh', text: '#!/bin/sh\necho fill\n', executable: true },
  ]);
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

describe('skills CLI interop', () => {
  it('reads, verifies, loads and restores what the skills CLI installed', async () => {
    await skills('add', './vendor', '-y', '--agent', 'universal');
    const written = await readSkillsLock(join(project, 'skills-lock.json'));
    const entry = written?.skills['pdf-tools'];
    expect(entry).toMatchObject({ sourceType: 'local' });
    expect(entry?.skillbox).toBeUndefined();
    // Verified by the CLI's own computedHash, and loadable by a locked repository.
    expect((await verifyInstalled(options)).skills).toEqual([{ name: 'pdf-tools', differences: [] }]);
    const repository = await FsSkillRepository.open({ roots: [join(project, '.agents/skills')], locked: true });
    expect((await repository.get('pdf-tools')).description).toBe('Fills PDF forms.');
    // Restored by skillbox exactly as locked.
    await rm(join(project, '.agents'), { recursive: true });
    await installFromLock({ ...options, frozen: true });
    expect(await fileText('.agents/skills/pdf-tools/docs/forms.md')).toBe('# Forms\n');
    expect((await verifyInstalled(options)).skills[0]?.differences).toEqual([]);
  }, 120_000);

  it('the skills CLI restores what skillbox installed, and computes the same computedHash', async () => {
    await addSkills('./vendor', {}, options);
    const ours = (await readSkillsLock(join(project, 'skills-lock.json')))?.skills['pdf-tools'];
    await rm(join(project, '.agents'), { recursive: true });
    await skills('experimental_install');
    expect(await fileText('.agents/skills/pdf-tools/SKILL.md')).toContain('name: pdf-tools');
    expect((await stat(join(project, '.agents/skills/pdf-tools/scripts/fill.sh'))).mode & 0o111).not.toBe(0);
    const theirs = (await readSkillsLock(join(project, 'skills-lock.json')))?.skills['pdf-tools'];
    expect(theirs?.computedHash).toBe(ours?.computedHash);
    // skillbox keeps a folder inside the project relative, so a committed lock restores elsewhere;
    // the CLI resolves it against the project and writes it back absolute.
    expect(ours?.source).toBe('./vendor');
    expect(theirs?.source).toBe(join(project, 'vendor'));
  }, 120_000);

  it('a skill the CLI locks as "PDF Tools" in the folder pdf-tools: verified, loaded locked, restored, removed', async () => {
    await writeTestFiles(join(project, 'spaced'), [{ path: 'SKILL.md', text: skillFile('PDF Tools', 'Fills forms.') }]);
    await skills('add', './spaced', '-y', '--agent', 'universal');
    expect(Object.keys((await readSkillsLock(join(project, 'skills-lock.json')))?.skills ?? {})).toEqual(['PDF Tools']);
    expect(await fileText('.agents/skills/pdf-tools/SKILL.md')).toContain('name: PDF Tools');
    expect(await verifyInstalled(options)).toMatchObject({
      skills: [{ name: 'PDF Tools', differences: [] }],
      unlisted: [],
    });
    const repository = await FsSkillRepository.open({ roots: [join(project, '.agents/skills')], locked: true });
    expect((await repository.get('PDF Tools')).description).toBe('Fills forms.');
    await rm(join(project, '.agents'), { recursive: true });
    await installFromLock({ ...options, frozen: true });
    expect(await fileText('.agents/skills/pdf-tools/SKILL.md')).toContain('name: PDF Tools');
    expect(Object.keys((await readSkillsLock(join(project, 'skills-lock.json')))?.skills ?? {})).toEqual(['PDF Tools']);
    await removeSkill('pdf-tools', options);
    expect((await readSkillsLock(join(project, 'skills-lock.json')))?.skills).toEqual({});
    await expect(stat(join(project, '.agents/skills/pdf-tools'))).rejects.toThrow();
  }, 120_000);

  it('skillbox installs "PDF Tools" where the CLI does, under the key the CLI writes', async () => {
    await writeTestFiles(join(project, 'spaced'), [{ path: 'SKILL.md', text: skillFile('PDF Tools', 'Fills forms.') }]);
    const [installed] = await addSkills('./spaced', { link: ['claude-code'] }, options);
    expect(installed?.path).toBe(join(project, '.agents/skills/pdf-tools'));
    expect(await readlink(join(project, '.claude/skills/pdf-tools'))).toBe('../../.agents/skills/pdf-tools');
    const ours = (await readSkillsLock(join(project, 'skills-lock.json')))?.skills['PDF Tools'];
    await rm(join(project, '.agents'), { recursive: true });
    await skills('experimental_install');
    expect(await fileText('.agents/skills/pdf-tools/SKILL.md')).toContain('name: PDF Tools');
    const theirs = (await readSkillsLock(join(project, 'skills-lock.json')))?.skills['PDF Tools'];
    expect(theirs?.computedHash).toBe(ours?.computedHash);
  }, 120_000);

  it("every agent folder skillbox links into is the folder the CLI installs that agent's skills in", async () => {
    const agents = Object.keys(agentSkillFolders);
    // The CLI skips an agent whose top folder (.windsurf) is missing from the project; make them all.
    for (const folder of new Set(Object.values(agentSkillFolders)))
      await mkdir(join(project, folder.split('/')[0] as string), { recursive: true });
    await skills('add', './vendor', '-y', '--agent', ...agents);
    const missing: string[] = [];
    for (const [agent, folder] of Object.entries(agentSkillFolders))
      if (
        !(await stat(join(project, folder, 'pdf-tools', 'SKILL.md')).then(
          () => true,
          () => false,
        ))
      )
        missing.push(`${agent}: ${folder}`);
    expect(missing).toEqual([]);
  }, 120_000);
});
