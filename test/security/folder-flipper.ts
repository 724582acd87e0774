import { type ChildProcess, spawn } from 'node:child_process';

/**
 * An attacker process that swaps `first` and `second` inside `folder` (a folder and a link to a
 * host folder) atomically with renameat2(RENAME_EXCHANGE), as fast as it can, until stopped: at
 * every moment the name is one or the other, so each host call that resolves a path through it
 * races the flip. Resolves once the flipping has begun.
 */
export async function startFolderFlipper(folder: string, first: string, second: string): Promise<ChildProcess> {
  const program = [
    'import ctypes, os, sys',
    'libc = ctypes.CDLL(None, use_errno=True)',
    'AT_FDCWD, RENAME_EXCHANGE = -100, 2',
    `os.chdir(${JSON.stringify(folder)})`,
    `a, b = ${JSON.stringify(first)}.encode(), ${JSON.stringify(second)}.encode()`,
    'print("flipping", flush=True)',
    'while True:',
    '    if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:',
    '        sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))',
  ].join('\n');
  const flipper = spawn('/usr/bin/python3', ['-c', program], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    flipper.stdout?.once('data', resolve);
    flipper.once('exit', (code) => reject(new Error(`the flipper exited (${code}) before flipping`)));
  });
  return flipper;
}
