import type { Socket } from 'node:net';
import type { EngineClient } from './engine-client.js';

/** An exec whose connection was taken over: stdin is written to `socket`, its output read from it (multiplexed). */
export interface AttachedExec {
  id: string;
  socket: Socket;
}

/**
 * Creates an exec with stdin attached and starts it over a connection the daemon hands over
 * (EngineClient.upgrade): the socket carries the multiplexed output one way and the process's
 * stdin the other, and ending the socket's writing side is end-of-file on stdin. The start
 * options are the request's body, read whole before the takeover, so none of it reaches the
 * process (unlike an attach request's body, which podman passes on as input: engine-exec.ts).
 */
export async function startAttachedExec(
  client: EngineClient,
  spec: { container: string; argv: string[]; user: string },
): Promise<AttachedExec> {
  const created = await client.json<{ Id: string }>('POST', `/containers/${encodeURIComponent(spec.container)}/exec`, {
    Cmd: spec.argv,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    User: spec.user,
  });
  const socket = await client.upgrade('POST', `/exec/${created.Id}/start`, { Detach: false, Tty: false });
  return { id: created.Id, socket };
}
