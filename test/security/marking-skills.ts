import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsSkillRepository } from '../../src/repository/fs-skill-repository.js';

/**
 * Skills `alpha` and `beta` in a new temporary folder, each with `scripts/mark.sh`, which writes
 * the line `mark(name)` gives to `$WORK_DIR/ran-<first argument>`: the approval attacks tell "it
 * ran" from "it did not" by that file. `root` is the folder (skills are under `root/skills`).
 */
export async function createMarkingSkills(
  prefix: string,
  mark: (name: string) => string,
): Promise<{ root: string; repository: FsSkillRepository }> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  for (const name of ['alpha', 'beta']) {
    const skill = join(root, 'skills', name);
    await mkdir(join(skill, 'scripts'), { recursive: true });
    await writeFile(
      join(skill, 'SKILL.md'),
      `---\nname: ${name}\ndescription: The ${name} skill.\n---\nRun mark.sh.\n`,
    );
    await writeFile(join(skill, 'scripts', 'mark.sh'), `echo ${mark(name)} > "$WORK_DIR/ran-$1"\n`);
  }
  return { root, repository: await FsSkillRepository.open({ roots: [join(root, 'skills')] }) };
}
