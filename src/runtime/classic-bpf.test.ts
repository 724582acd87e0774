import { describe, expect, it } from 'vitest';
import { assembleBpf, BPF_INSTRUCTION_BYTES } from './classic-bpf.js';

describe('assembleBpf', () => {
  it('encodes each instruction as code, jump-if-true, jump-if-false, constant and resolves labels forward', () => {
    const program = assembleBpf([
      { op: 'load-word', offset: 4 },
      { op: 'jump-if-equal', value: 0xc000003e, then: 'yes', else: 'no' },
      { op: 'label', name: 'yes' },
      { op: 'return', value: 0x7fff0000 },
      { op: 'label', name: 'no' },
      { op: 'return', value: 0x80000000 },
    ]);
    expect(program.length).toBe(4 * BPF_INSTRUCTION_BYTES);
    const records = [0, 1, 2, 3].map((index) => {
      const at = index * BPF_INSTRUCTION_BYTES;
      return [program.readUInt16LE(at), program[at + 2], program[at + 3], program.readUInt32LE(at + 4)];
    });
    expect(records).toEqual([
      [0x20, 0, 0, 4],
      [0x15, 0, 1, 0xc000003e],
      [0x06, 0, 0, 0x7fff0000],
      [0x06, 0, 0, 0x80000000],
    ]);
  });

  it('refuses an undefined or duplicate label and a jump backwards or past 255 instructions', () => {
    expect(() => assembleBpf([{ op: 'jump-if-equal', value: 1, then: 'missing' }])).toThrow(
      'BPF label "missing" is not defined',
    );
    expect(() =>
      assembleBpf([
        { op: 'label', name: 'a' },
        { op: 'label', name: 'a' },
      ]),
    ).toThrow('defined twice');
    expect(() =>
      assembleBpf([
        { op: 'label', name: 'back' },
        { op: 'return', value: 0 },
        { op: 'jump-if-equal', value: 1, then: 'back' },
      ]),
    ).toThrow('0..255 forward');
    const far = [
      { op: 'jump-if-equal', value: 1, then: 'end' } as const,
      ...Array.from({ length: 256 }, () => ({ op: 'return', value: 0 }) as const),
      { op: 'label', name: 'end' } as const,
      { op: 'return', value: 0 } as const,
    ];
    expect(() => assembleBpf(far)).toThrow('spans 256 instructions');
  });
});
