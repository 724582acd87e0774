import { describe, expect, it } from 'vitest';
import { parseSkillMarkdown } from './parse-skill.js';
import { isRetrySafeSkill } from './retry-safe.js';

describe('isRetrySafeSkill', () => {
  const skill = (metadata: string) =>
    parseSkillMarkdown(`---\nname: demo\ndescription: A demo.\n${metadata}---\nBody\n`, { folderName: 'demo' });

  it('reads metadata.skillbox-retry: safe from the frontmatter', () => {
    expect(isRetrySafeSkill(skill('metadata:\n  skillbox-retry: safe\n'))).toBe(true);
    expect(isRetrySafeSkill(skill('metadata:\n  skillbox-retry: " Safe "\n'))).toBe(true);
  });

  it('is false for any other value, no key or no metadata', () => {
    expect(isRetrySafeSkill(skill('metadata:\n  skillbox-retry: unsafe\n'))).toBe(false);
    expect(isRetrySafeSkill(skill('metadata:\n  skillbox-retry: true\n'))).toBe(false);
    expect(isRetrySafeSkill(skill('metadata:\n  author: me\n'))).toBe(false);
    expect(isRetrySafeSkill(skill(''))).toBe(false);
  });
});
