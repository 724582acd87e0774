import type * as fs from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

// The parents are found by reading (cgroup-parents.ts), and what is read must mean that a run's
// cgroup can be made there: where it cannot, `processLimit` says `cgroup` while every run goes
// without one (RunCgroup.acquire gives undefined). cgroup v2 refuses a new cgroup past a limit an
// ancestor sets (`cgroup.max.depth`, `cgroup.max.descendants`: a delegated subtree or a container's
// cgroup may have them) although the folder is writable and the controller enabled. Checked
// against the kernel's own cgroup v2 hierarchy; only what this host cannot give a v2 hierarchy
// (the pids controller, bound to v1 on a hybrid host) and this process's place are made up.

const actual = await vi.importActual<typeof import('node:fs')>('node:fs');

function readOrUndefined(path: string): string | undefined {
  try {
    return actual.readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

const mountLine = (readOrUndefined('/proc/self/mountinfo') ?? '')
  .split('\n')
  .find((line) => line.split(' - ')[1]?.startsWith('cgroup2 '));
const mountPoint = mountLine?.split(' ')[4];
const ownPath = (readOrUndefined('/proc/self/cgroup') ?? '')
  .split('\n')
  .find((line) => line.startsWith('0::'))
  ?.slice(3);
const testName = `skillbox-limits-test-${process.pid}`;
const testCgroup = mountPoint && ownPath !== undefined ? join(mountPoint, ownPath, testName) : undefined;

function canMakeTestCgroup(): boolean {
  if (testCgroup === undefined) return false;
  try {
    actual.mkdirSync(testCgroup);
    return actual.existsSync(join(testCgroup, 'cgroup.max.depth'));
  } catch {
    return false;
  }
}
const available = canMakeTestCgroup();

vi.mock('node:fs', async () => {
  const real = await vi.importActual<typeof import('node:fs')>('node:fs');
  const readFileSync = ((path: fs.PathOrFileDescriptor, options?: unknown) => {
    if (path === '/proc/self/mountinfo') return `${mountLine}\n`;
    if (path === '/proc/self/cgroup') return `0::${join(ownPath ?? '/', testName)}\n`;
    // The controller this host's v2 hierarchy cannot have, said to be handed down.
    if (testCgroup !== undefined && path === join(testCgroup, 'skillbox', 'cgroup.subtree_control'))
      return 'cpu memory pids\n';
    return real.readFileSync(path, options as never);
  }) as typeof fs.readFileSync;
  return { ...real, default: { ...real, readFileSync }, readFileSync };
});

async function freshParents(): Promise<typeof import('./cgroup-parents.js')> {
  vi.resetModules();
  return import('./cgroup-parents.js');
}

function makeChild(parent: string): string | undefined {
  const child = join(parent, 'run-probe');
  try {
    actual.mkdirSync(child);
    actual.rmdirSync(child);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
}

function reset(): void {
  const cgroup = testCgroup as string;
  if (actual.existsSync(join(cgroup, 'skillbox'))) actual.rmdirSync(join(cgroup, 'skillbox'));
  actual.writeFileSync(join(cgroup, 'cgroup.max.depth'), 'max');
  actual.writeFileSync(join(cgroup, 'cgroup.max.descendants'), 'max');
}

describe.runIf(available)('cgroup parents on cgroup v2: found only where a run cgroup can be made', () => {
  afterAll(() => {
    reset();
    actual.rmdirSync(testCgroup as string);
  });

  it('finds the parent where nothing limits the subtree (the made-up parts hold)', async () => {
    reset();
    const parent = (await freshParents()).pidsCgroupParent();
    expect(parent).toBe(join(testCgroup as string, 'skillbox'));
    expect(makeChild(parent as string)).toBeUndefined();
  });

  it('finds none below a cgroup whose cgroup.max.depth leaves no room for a run cgroup', async () => {
    reset();
    // The `skillbox` folder may be made, a run's folder one level further may not.
    actual.writeFileSync(join(testCgroup as string, 'cgroup.max.depth'), '1');
    const parent = (await freshParents()).pidsCgroupParent();
    expect(makeChild(join(testCgroup as string, 'skillbox'))).toBe('EAGAIN');
    expect(parent).toBeUndefined();
  });

  it('finds none below a cgroup whose cgroup.max.descendants is reached', async () => {
    reset();
    actual.writeFileSync(join(testCgroup as string, 'cgroup.max.descendants'), '1');
    const parent = (await freshParents()).pidsCgroupParent();
    expect(makeChild(join(testCgroup as string, 'skillbox'))).toBe('EAGAIN');
    expect(parent).toBeUndefined();
  });
});
