import { lstatSync, readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxWorks } from '../support/services.js';
import { sandboxFixture } from './runtime-fixture.js';

/**
 * Entries of the host's /proc (its pid folders and the network sysctls aside) that other users
 * cannot read: a sandbox run by root is uid 0 to the kernel, so the owner bits let it in.
 */
function rootOnlyProcEntries(): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return;
    }
    for (const name of names) {
      if (folder === '/proc' && (/^\d+$/.test(name) || name === 'self' || name === 'thread-self')) continue;
      const path = `${folder}/${name}`;
      if (path === '/proc/sys/net') continue;
      let mode: number;
      let isFolder: boolean;
      try {
        const status = lstatSync(path);
        mode = status.mode;
        isFolder = status.isDirectory();
      } catch {
        continue;
      }
      if ((mode & 0o004) === 0 || (isFolder && (mode & 0o001) === 0)) found.push(path);
      else if (isFolder) walk(path);
    }
  };
  walk('/proc');
  return found;
}

/** Files that hold host kernel state whatever their mode: keys of every uid, kernel symbols, timers, devices. */
const KERNEL_STATE_FILES = [
  '/proc/slabinfo',
  '/proc/vmallocinfo',
  '/proc/timer_list',
  '/proc/pagetypeinfo',
  '/proc/kallsyms',
  '/proc/sched_debug',
  '/proc/keys',
  '/proc/key-users',
  '/proc/kpagecount',
  '/proc/kpageflags',
  '/proc/kpagecgroup',
  '/proc/kcore',
  '/proc/kmsg',
  '/proc/latency_stats',
  '/proc/timer_stats',
  '/proc/sysrq-trigger',
];
const KERNEL_STATE_FOLDERS = ['/proc/acpi', '/proc/scsi', '/proc/asound', '/proc/tty/driver'];

// Read inside the sandbox: each path's first bytes, or why it could not be read. "masked" is a
// path that reads as nothing (empty, or refused); anything else printed a byte of host state.
const READER = `python3 -c "
import os, sys
for path in sys.argv[1:]:
    try:
        if os.path.isdir(path):
            print(path, 'listed' if os.listdir(path) else 'masked')
        else:
            with open(path, 'rb') as file:
                print(path, 'read' if file.read(64) else 'masked')
    except FileNotFoundError:
        print(path, 'absent')
    except OSError:
        print(path, 'masked')
"`;

describe.runIf(sandboxWorks)('sandbox runtime: host kernel state in /proc', () => {
  const fixture = sandboxFixture();
  afterAll(() => fixture.dispose());

  const readInside = async (paths: string[]): Promise<Record<string, string>> => {
    const result = await fixture.run(`${READER} ${paths.join(' ')}`);
    expect(result.stderr).toBe('');
    return Object.fromEntries(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(' ') as [string, string]),
    );
  };

  it('reads none of the /proc entries the host keeps from other users', async () => {
    const rootOnly = rootOnlyProcEntries();
    expect(rootOnly).toContain('/proc/slabinfo');
    const seen = await readInside(rootOnly);
    const readable = Object.entries(seen).filter(([, outcome]) => outcome === 'read' || outcome === 'listed');
    expect(readable).toEqual([]);
  });

  it('reads nothing of the kernel state files and folders container runtimes mask', async () => {
    const seen = await readInside([...KERNEL_STATE_FILES, ...KERNEL_STATE_FOLDERS]);
    const readable = Object.entries(seen).filter(([, outcome]) => outcome === 'read' || outcome === 'listed');
    // kallsyms is readable by every user and shows each symbol's address as 0 to a reader without
    // CAP_SYSLOG: only as root does the sandbox need it masked.
    expect(readable.filter(([path]) => process.getuid?.() === 0 || path !== '/proc/kallsyms')).toEqual([]);
  });

  it('still reads the /proc files programs use', async () => {
    const seen = await readInside([
      '/proc/meminfo',
      '/proc/cpuinfo',
      '/proc/self/status',
      '/proc/uptime',
      '/proc/sys/kernel/ngroups_max',
    ]);
    expect(Object.values(seen)).toEqual(['read', 'read', 'read', 'read', 'read']);
  });
});
