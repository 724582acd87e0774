import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retainedBytes } from '../../test/support/retained-memory.js';
import { FsSkillRepository } from './fs-skill-repository.js';

const skills = 80;
const bodyBytes = 256 * 1024;

describe('FsSkillRepository memory', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'skillbox-listing-memory-'));
    for (let index = 0; index < skills; index += 1) {
      const folder = join(root, `skill-${index}`);
      await mkdir(folder);
      const line = `line ${index} of a long body\n`;
      const body = `# Skill ${index}\n\n${line.repeat(Math.ceil(bodyBytes / line.length))}`;
      await writeFile(
        join(folder, 'SKILL.md'),
        `---\nname: skill-${index}\ndescription: Skill ${index}.\n---\n${body}`,
      );
    }
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('keeps the frontmatters of a listing, not the files: 20 MB of bodies are read again when a skill is loaded', async () => {
    const before = await retainedBytes();
    const repository = await FsSkillRepository.open({ roots: [root] });
    expect(await repository.list()).toHaveLength(skills);
    const held = (await retainedBytes()) - before;
    // Keeping every file read would hold the 20 MB of bodies; the frontmatters are a few kilobytes.
    expect(held).toBeLessThan(4 * 1024 * 1024);

    const skill = await repository.get('skill-7');
    expect(skill.body.startsWith('# Skill 7\n\nline 7 of a long body\n')).toBe(true);
    expect(skill.body.length).toBeGreaterThan(bodyBytes);
  });
});
