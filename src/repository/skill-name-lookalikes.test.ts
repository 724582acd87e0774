import { describe, expect, it } from 'vitest';
import { lookalikeKey, mixedLookalikeScripts } from './skill-name-lookalikes.js';

describe('skill name look-alikes', () => {
  it('gives twins one key: invisible characters, NFKC forms, look-alike letters and digits', () => {
    const pdf = lookalikeKey('pdf');
    for (const twin of ['p\u200Bdf', '\uFF50\uFF44\uFF46', '\u0440df', 'PDF', 'p\u2060df'])
      expect(lookalikeKey(twin)).toBe(pdf);
    expect(lookalikeKey('\u0430\u0441\u0435')).toBe(lookalikeKey('ace'));
    expect(lookalikeKey('payr0ll')).toBe(lookalikeKey('payroll'));
    expect(lookalikeKey('modern')).toBe(lookalikeKey('modem'));
  });

  it('keeps names a reader tells apart apart', () => {
    expect(lookalikeKey('pdf')).not.toBe(lookalikeKey('pdfs'));
    expect(lookalikeKey('deploy')).not.toBe(lookalikeKey('deploy-v2'));
    expect(lookalikeKey('技能')).toBe('技能');
  });

  it('names the look-alike scripts a name mixes, and only those', () => {
    expect(mixedLookalikeScripts('d\u0435ploy')).toEqual(['Latin', 'Cyrillic']);
    expect(mixedLookalikeScripts('\u0430\u0441\u0435')).toEqual([]);
    expect(mixedLookalikeScripts('k8s-deploy')).toEqual([]);
    expect(mixedLookalikeScripts('技能-v2')).toEqual([]);
  });
});
