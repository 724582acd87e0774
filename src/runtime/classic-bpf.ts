/**
 * A minimal assembler for classic BPF, the only program format seccomp accepts (bubblewrap's
 * `--seccomp FD` reads one as raw `struct sock_filter` records). It is written here rather than
 * taken from a library because the filter is a security boundary: the few instructions a seccomp
 * filter needs (load a word, compare, test bits, return) fit in this file where they can be read
 * in full, and npm's seccomp packages are native addons (libseccomp bindings) that would add a
 * compiler and a shared library to every install for a program of a few dozen instructions.
 */

/** One instruction before assembly: jumps name their targets by label. */
export type BpfInstruction =
  | { op: 'load-word'; offset: number }
  | { op: 'jump-if-equal'; value: number; then: string; else?: string }
  | { op: 'jump-if-greater-or-equal'; value: number; then: string; else?: string }
  | { op: 'jump-if-any-bit'; mask: number; then: string; else?: string }
  | { op: 'return'; value: number }
  | { op: 'label'; name: string };

// Opcodes from linux/bpf_common.h: class | size | mode, or class | operation | source.
const LD_W_ABS = 0x00 | 0x00 | 0x20;
const JMP_JEQ_K = 0x05 | 0x10 | 0x00;
const JMP_JGE_K = 0x05 | 0x30 | 0x00;
const JMP_JSET_K = 0x05 | 0x40 | 0x00;
const RET_K = 0x06 | 0x00;

/** Bytes per `struct sock_filter`: u16 code, u8 jt, u8 jf, u32 k, in the host's byte order. */
export const BPF_INSTRUCTION_BYTES = 8;

/**
 * Resolves labels to the relative forward offsets BPF jumps use (0 = the next instruction) and
 * encodes the program. A jump may only go forward and at most 255 instructions (its offsets are
 * one byte): checked here, so that a policy grown too long fails when built, not inside bubblewrap.
 */
export function assembleBpf(program: readonly BpfInstruction[]): Buffer {
  const positions = new Map<string, number>();
  let count = 0;
  for (const instruction of program) {
    if (instruction.op === 'label') {
      if (positions.has(instruction.name)) throw new Error(`BPF label "${instruction.name}" is defined twice`);
      positions.set(instruction.name, count);
    } else count += 1;
  }
  const buffer = Buffer.alloc(count * BPF_INSTRUCTION_BYTES);
  const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  let index = 0;
  const offsetTo = (label: string | undefined): number => {
    if (label === undefined) return 0;
    const target = positions.get(label);
    if (target === undefined) throw new Error(`BPF label "${label}" is not defined`);
    const offset = target - index - 1;
    if (offset < 0 || offset > 255)
      throw new Error(`BPF jump to "${label}" spans ${offset} instructions; it must be 0..255 forward`);
    return offset;
  };
  const emit = (code: number, jumpTrue: number, jumpFalse: number, constant: number): void => {
    const at = index * BPF_INSTRUCTION_BYTES;
    if (littleEndian) {
      buffer.writeUInt16LE(code, at);
      buffer.writeUInt32LE(constant >>> 0, at + 4);
    } else {
      buffer.writeUInt16BE(code, at);
      buffer.writeUInt32BE(constant >>> 0, at + 4);
    }
    buffer.writeUInt8(jumpTrue, at + 2);
    buffer.writeUInt8(jumpFalse, at + 3);
    index += 1;
  };
  for (const instruction of program) {
    switch (instruction.op) {
      case 'label':
        break;
      case 'load-word':
        emit(LD_W_ABS, 0, 0, instruction.offset);
        break;
      case 'jump-if-equal':
        emit(JMP_JEQ_K, offsetTo(instruction.then), offsetTo(instruction.else), instruction.value);
        break;
      case 'jump-if-greater-or-equal':
        emit(JMP_JGE_K, offsetTo(instruction.then), offsetTo(instruction.else), instruction.value);
        break;
      case 'jump-if-any-bit':
        emit(JMP_JSET_K, offsetTo(instruction.then), offsetTo(instruction.else), instruction.mask);
        break;
      case 'return':
        emit(RET_K, 0, 0, instruction.value);
        break;
    }
  }
  return buffer;
}
