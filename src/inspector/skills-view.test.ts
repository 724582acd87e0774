import { afterEach, describe, expect, it } from 'vitest';
import { FsSkillRepository } from '../repository/fs-skill-repository.js';
import { createSkillTree, type SkillTree, skillMarkdown } from '../repository/testing/skill-tree.js';
import { createRequirementChecker } from '../requirements/check-requirements.js';
import { LocalRuntime } from '../runtime/local-runtime.js';
import { describeSkills, type RequirementCheckerSource } from './skills-view.js';

let tree: SkillTree | undefined;
afterEach(async () => {
  await tree?.remove();
  tree = undefined;
});

/** A checker source over the local runtime that counts how often it was asked for. */
function countedSource(): { source: RequirementCheckerSource; asked: () => number } {
  let asked = 0;
  return {
    source: async () => {
      asked += 1;
      return { checker: createRequirementChecker({ runtime: new LocalRuntime() }), where: 'local' };
    },
    asked: () => asked,
  };
}

describe('describeSkills: requirements', () => {
  it('asks for no runtime when no skill declares requirements', async () => {
    tree = await createSkillTree({ 'plain/SKILL.md': skillMarkdown('plain', 'Declares nothing.') });
    const counted = countedSource();
    const view = await describeSkills(await FsSkillRepository.open({ roots: [tree.dir] }), {
      requirementChecker: counted.source,
    });
    expect(counted.asked()).toBe(0);
    expect(view.requirementsCheckedIn).toBeUndefined();
    expect(view.skills[0]?.requirementCheck).toBeUndefined();
  });

  it('checks only the skills that declare some, and says what is missing', async () => {
    tree = await createSkillTree({
      'plain/SKILL.md': skillMarkdown('plain', 'Declares nothing.'),
      'needy/SKILL.md':
        '---\nname: needy\ndescription: Needs things.\nmetadata:\n  requires:\n    bins: [sh, no-such-program-skillbox]\n---\nbody\n',
    });
    const counted = countedSource();
    const view = await describeSkills(await FsSkillRepository.open({ roots: [tree.dir] }), {
      requirementChecker: counted.source,
    });
    expect(counted.asked()).toBe(1);
    expect(view.requirementsCheckedIn).toBe('local');
    const byName = new Map(view.skills.map((skill) => [skill.name, skill]));
    expect(byName.get('plain')?.requirementCheck).toBeUndefined();
    expect(byName.get('needy')?.requirementCheck?.met).toBe(false);
    expect(byName.get('needy')?.requirementCheck?.missing.join('\n')).toContain('no-such-program-skillbox');
    expect(byName.get('needy')?.requirementCheck?.missing.join('\n')).not.toContain('"sh"');
    expect(byName.get('needy')?.source).toEqual({ kind: 'folder', label: byName.get('needy')?.root });
  });
});
