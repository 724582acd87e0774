/**
 * How a command string runs: non-interactive bash that reads no startup files. `--norc` matters:
 * bash sources ~/.bashrc when stdin is a socket (it takes that for an rsh session), and Node's
 * stdin pipes are sockets.
 */
export function shellArgv(shell: string, command: string): string[] {
  return [shell, '--noprofile', '--norc', '-c', command];
}
