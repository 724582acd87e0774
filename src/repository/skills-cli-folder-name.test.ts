import { describe, expect, it } from 'vitest';
import { lockEntryOfFolder, skillsCliFolderName } from './skills-cli-folder-name.js';
import type { SkillsLockEntry } from './skills-lock-file.js';

const entry = (source: string): SkillsLockEntry => ({ source, sourceType: 'local', computedHash: '0'.repeat(64) });

describe('skillsCliFolderName', () => {
  it('gives the folder the skills CLI installs a name into', () => {
    expect(skillsCliFolderName('pdf')).toBe('pdf');
    expect(skillsCliFolderName('PDF Tools')).toBe('pdf-tools');
    expect(skillsCliFolderName('  My__Skill v2.0!  ')).toBe('my__skill-v2.0');
    expect(skillsCliFolderName('café')).toBe('caf');
    expect(skillsCliFolderName('../../etc')).toBe('etc');
    expect(skillsCliFolderName('..')).toBe('unnamed-skill');
    expect(skillsCliFolderName('x'.repeat(300))).toHaveLength(255);
  });
});

describe('lockEntryOfFolder', () => {
  it('finds the entry by the folder name first, then by the one key the CLI installs there', () => {
    const lock = { version: 1, skills: { 'PDF Tools': entry('a'), pdf: entry('b') } };
    expect(lockEntryOfFolder(lock, 'pdf')?.entry.source).toBe('b');
    expect(lockEntryOfFolder(lock, 'pdf-tools')).toEqual({ key: 'PDF Tools', entry: entry('a') });
    expect(lockEntryOfFolder(lock, 'csv')).toBeUndefined();
  });

  it('returns nothing when two keys go to one folder and neither is the folder name', () => {
    const lock = { version: 1, skills: { 'PDF Tools': entry('a'), 'pdf tools': entry('b') } };
    expect(lockEntryOfFolder(lock, 'pdf-tools')).toBeUndefined();
  });
});
