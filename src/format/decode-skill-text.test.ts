import { describe, expect, it } from 'vitest';
import { decodeSkillText } from './decode-skill-text.js';

describe('decodeSkillText', () => {
  it('tells a U+FFFD the author wrote from one that replaced invalid bytes', () => {
    const written = decodeSkillText(new TextEncoder().encode('a \uFFFD b'));
    expect(written).toEqual({ text: 'a \uFFFD b', replacedInvalidBytes: false });
    const replaced = decodeSkillText(new Uint8Array([0x61, 0xff, 0x62]));
    expect(replaced).toEqual({ text: 'a\uFFFDb', replacedInvalidBytes: true });
    const both = decodeSkillText(new Uint8Array([...new TextEncoder().encode('\uFFFD'), 0xc3]));
    expect(both.replacedInvalidBytes).toBe(true);
  });

  it('passes text through and decodes valid multi-byte UTF-8 without a warning', () => {
    expect(decodeSkillText('caf\u00e9')).toEqual({ text: 'caf\u00e9', replacedInvalidBytes: false });
    expect(decodeSkillText(new TextEncoder().encode('\u6280\u80fd \u{1F600}'))).toEqual({
      text: '\u6280\u80fd \u{1F600}',
      replacedInvalidBytes: false,
    });
  });
});
