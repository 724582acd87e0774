import { describe, expect, it } from 'vitest';
import { sandboxWorks } from '../../test/support/services.js';
import { pidsCgroupParent } from './cgroup-parents.js';
import { preludeCanJoinCgroups } from './cgroup-self-join.js';
import { findPreludeProgram } from './sandbox-prelude-program.js';
import { detectSandboxSupport } from './sandbox-support.js';

const compiled = findPreludeProgram();
const bubblewrap = sandboxWorks ? detectSandboxSupport() : undefined;
const bubblewrapPath = bubblewrap?.available ? bubblewrap.bubblewrapPath : undefined;

describe.runIf(bubblewrapPath !== undefined && compiled !== undefined && pidsCgroupParent() !== undefined)(
  'the compiled prelude joining a cgroup from inside the sandbox',
  () => {
    it('is asked once, by a real sandbox: here (Linux 5.16+ or cgroup v1) the answer is yes', async () => {
      const first = preludeCanJoinCgroups(bubblewrapPath as string, compiled as string);
      expect(preludeCanJoinCgroups(bubblewrapPath as string, compiled as string)).toBe(first);
      expect(await first).toBe(true);
    });

    it('is no when the first program does not join and answer (the run then keeps the hand-shake)', async () => {
      // /bin/false stands for a prelude whose join the kernel refused: it exits non-zero and prints nothing.
      expect(await preludeCanJoinCgroups(bubblewrapPath as string, '/bin/false')).toBe(false);
    });
  },
);
