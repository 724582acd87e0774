import { describe, expect, it } from 'vitest';
import { BPF_INSTRUCTION_BYTES } from './classic-bpf.js';
import { deniedSystemCalls, seccompFilter, uncountedMemoryCalls } from './seccomp-policy.js';

describe('seccomp policy', () => {
  it('is built for x86_64 and aarch64 and for nothing else', () => {
    for (const architecture of ['x64', 'arm64']) {
      const filter = seccompFilter(architecture) as Buffer;
      expect(filter.length % BPF_INSTRUCTION_BYTES).toBe(0);
      // The first instruction loads the audit architecture (offset 4 of struct seccomp_data).
      expect([filter.readUInt16LE(0), filter.readUInt32LE(4)]).toEqual([0x20, 4]);
    }
    expect(seccompFilter('ia32')).toBeUndefined();
    expect(seccompFilter('riscv64')).toBeUndefined();
  });

  it('denies the calls docs/security.md lists, with the x86-only ones on x86_64 alone', () => {
    const arm = deniedSystemCalls('arm64');
    for (const name of [
      'setns',
      'mount',
      'keyctl',
      'ptrace',
      'io_uring_setup',
      'bpf',
      'perf_event_open',
      'userfaultfd',
      'kexec_load',
      'init_module',
    ])
      expect(arm).toContain(name);
    expect(arm).not.toContain('iopl');
    expect(deniedSystemCalls('x64')).toEqual(expect.arrayContaining([...arm, 'iopl', 'ioperm', 'uselib', '_sysctl']));
  });

  it('adds one refusal per call holding uncounted memory only when asked, and builds each variant once', () => {
    expect(uncountedMemoryCalls()).toEqual(['memfd_create', 'shmget', 'msgget']);
    for (const architecture of ['x64', 'arm64']) {
      const plain = seccompFilter(architecture) as Buffer;
      const refusing = seccompFilter(architecture, { refuseUncountedMemory: true }) as Buffer;
      expect(refusing.length - plain.length).toBe(3 * BPF_INSTRUCTION_BYTES);
      expect(seccompFilter(architecture, { refuseUncountedMemory: true })).toBe(refusing);
      expect(seccompFilter(architecture, { refuseUncountedMemory: false })).toBe(plain);
    }
  });
});
