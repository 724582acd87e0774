// A repository a user clones may commit links: `.agents` (or `.agents/skills`) leading to a folder
// outside the project, a lock key that climbs out of the skills folder. `add`, `install`,
// `remove` and `verify` must then refuse, naming the path or key, and write, delete or read
// nothing outside the project. (`--link` already refuses a `.claude` that leads out.)
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addSkills,
  type InstallerOptions,
  installFromLock,
  removeSkill,
  verifyInstalled,
} from '../../src/hub/install/installer.js';
import { createSourceRegistry } from '../../src/hub/source-registry.js';
import { createLocalSkillSource } from '../../src/hub/sources/local-source.js';
import { skillFile, writeTestFiles } from '../../src/hub/testing/skill-folder.js';

let base: string;
let project: string;
let outside: string;
let options: InstallerOptions;

async function tree(folder: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (current: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      found.push(`${prefix}${entry.name}`);
      if (entry.isDirectory()) await walk(join(current, entry.name), `${prefix}${entry.name}/`);
    }
  };
  await walk(folder, '');
  return found.sort();
}

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'skillbox-project-links-'));
  project = join(base, 'project');
  outside = join(base, 'outside');
  await mkdir(project);
  await writeTestFiles(join(outside, 'skills/good'), [{ path: 'SKILL.md', text: "the victim's own file\n" }]);
  await writeTestFiles(join(project, 'vendor/good'), [{ path: 'SKILL.md', text: skillFile('good') }]);
  options = { registry: createSourceRegistry([createLocalSkillSource({ cwd: project })]), cwd: project };
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('hub: a committed link that leads the skills folder out of the project', () => {
  it('add refuses to write through a .agents link, naming it', async () => {
    await symlink(outside, join(project, '.agents'));
    const before = await tree(outside);
    await expect(addSkills('./vendor/good', {}, options)).rejects.toThrow(
      /\.agents\/skills leads outside the project .* through a link/,
    );
    expect(await tree(outside)).toEqual(before);
  });

  it('add refuses a .agents/skills link too', async () => {
    await mkdir(join(project, '.agents'));
    await symlink(join(outside, 'skills'), join(project, '.agents/skills'));
    const before = await tree(outside);
    await expect(addSkills('./vendor/good', {}, options)).rejects.toThrow(/leads outside the project/);
    expect(await tree(outside)).toEqual(before);
  });

  it('remove refuses to delete through a .agents link', async () => {
    await addSkills('./vendor/good', {}, options);
    await rm(join(project, '.agents'), { recursive: true });
    await symlink(outside, join(project, '.agents'));
    await expect(removeSkill('good', options)).rejects.toThrow(/leads outside the project/);
    expect(await readFile(join(outside, 'skills/good/SKILL.md'), 'utf8')).toBe("the victim's own file\n");
  });

  it('install from the lock refuses to write through a .agents link', async () => {
    await addSkills('./vendor/good', {}, options);
    await rm(join(project, '.agents'), { recursive: true });
    await symlink(outside, join(project, '.agents'));
    const before = await tree(outside);
    await expect(installFromLock(options)).rejects.toThrow(/leads outside the project/);
    expect(await tree(outside)).toEqual(before);
    expect(await readFile(join(outside, 'skills/good/SKILL.md'), 'utf8')).toBe("the victim's own file\n");
  });

  it('verify refuses to hash a folder a .agents link leads to', async () => {
    await addSkills('./vendor/good', {}, options);
    await rm(join(project, '.agents'), { recursive: true });
    await symlink(outside, join(project, '.agents'));
    await expect(verifyInstalled(options)).rejects.toThrow(/leads outside the project/);
  });

  it("verify's search of the other agents' folders follows no link out of the project", async () => {
    await addSkills('./vendor/good', {}, options);
    await rm(join(project, '.agents/skills/good'), { recursive: true });
    // Three ways a committed link could lead verify to another folder named `good`: the agent
    // folder, its skills folder, or the skill folder itself.
    await symlink(outside, join(project, '.claude'));
    await mkdir(join(project, '.cursor'));
    await symlink(join(outside, 'skills'), join(project, '.cursor/skills'));
    await mkdir(join(project, '.windsurf/skills'), { recursive: true });
    await symlink(join(outside, 'skills/good'), join(project, '.windsurf/skills/good'));
    const report = await verifyInstalled({ cwd: project });
    expect(report.skills).toEqual([
      { name: 'good', differences: [`${join(project, '.agents/skills/good')}: the skill folder is missing`] },
    ]);
    expect(JSON.stringify(report)).not.toContain(outside);
  });

  it('a target given outside the project on purpose still works', async () => {
    const installed = await addSkills('./vendor/good', {}, { ...options, target: join(base, 'elsewhere/skills') });
    expect(installed.map((skill) => skill.path)).toEqual([join(base, 'elsewhere/skills/good')]);
  });
});

describe('hub: lock keys that climb out of the skills folder', () => {
  it('verify refuses a key like ../../../x beside x, naming the key, and hashes nothing outside', async () => {
    await addSkills('./vendor/good', {}, options);
    const lockPath = join(project, 'skills-lock.json');
    const lock = JSON.parse(await readFile(lockPath, 'utf8')) as { skills: Record<string, unknown> };
    // `../../../good` goes to the folder `good` by the skills CLI's rule; as `good` is taken, the
    // key itself was used as the folder: .agents/skills/../../../good, beside the project.
    lock.skills['../../../good'] = { ...(lock.skills.good as object) };
    await writeFile(lockPath, JSON.stringify(lock, null, 2));
    await writeTestFiles(join(base, 'good'), [{ path: 'SKILL.md', text: 'outside the project\n' }]);
    const error = await verifyInstalled(options).then(
      () => undefined,
      (caught: unknown) => caught as Error,
    );
    expect(error?.message).toMatch(/"\.\.\/\.\.\/\.\.\/good"/);
    expect(error?.message).toMatch(/skills-lock\.json/);
  });
});
