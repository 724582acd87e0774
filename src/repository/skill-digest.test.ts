import { describe, expect, it } from 'vitest';
import { skillDigest, skillsCliComputedHash } from './skill-digest.js';

const file = (path: string, text: string) => ({ path, bytes: Buffer.from(text) });

describe('skillsCliComputedHash', () => {
  it('gives the computedHash the skills CLI 1.5.18 wrote for the same two files', () => {
    // Written by `npx skills add ../src --skill hello-world -y --agent universal` into skills-lock.json.
    const files = [
      file('scripts/run.sh', '#!/bin/sh\necho hi\n'),
      file('SKILL.md', '---\nname: hello-world\ndescription: Says hello.\n---\n# Hello\nSay hi.\n'),
    ];
    expect(skillsCliComputedHash(files)).toBe('b14f556e99f520af1b7b02769c2f544e3ddaee0cbf4c0072bd879c8c311b4133');
  });

  it('orders paths as localeCompare does (case-insensitive first), not by code unit', () => {
    const files = [file('b.md', 'b'), file('A.md', 'a'), file('a.md', 'c')];
    const reversed = [...files].reverse();
    expect(skillsCliComputedHash(files)).toBe(skillsCliComputedHash(reversed));
  });
});

describe('skillDigest', () => {
  it('tells apart two skills the concatenating hash cannot', () => {
    // path+content runs together: "a" + "bc" and "ab" + "c" hash the same without length prefixes.
    const one = [file('a', 'bc')];
    const other = [file('ab', 'c')];
    expect(skillsCliComputedHash(one)).toBe(skillsCliComputedHash(other));
    expect(skillDigest(one)).not.toBe(skillDigest(other));
  });

  it('does not depend on the order files are given in, and changes with any byte', () => {
    const files = [file('SKILL.md', 'x'), file('docs/a.md', 'y')];
    expect(skillDigest(files)).toBe(skillDigest([...files].reverse()));
    expect(skillDigest([file('SKILL.md', 'x'), file('docs/a.md', 'z')])).not.toBe(skillDigest(files));
  });
});
