import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A unix socket in front of an Engine API socket that passes every byte through and writes down
 * each request line the client sends (`POST /v1.41/containers/x/exec`), so a test counts the
 * round trips a runtime makes to the daemon, not its time. Request lines are recognised at the
 * start of a chunk from the client: a request body that starts with one would be counted too,
 * which none of the runtime's bodies (JSON, tar) does. An exec's JSON body is read for its argv
 * too, to tell the runtime's kill-everything exec from the others.
 */
export interface EngineRequestLog {
  socketPath: string;
  /** The request lines seen so far, `METHOD PATH` without the API version. */
  requests: string[];
  /**
   * Requests seen since `mark` was called, counted by kind; `kills` are the execs among them that
   * kill every process of the user (the runtime sends one when it cannot trust the wrapper's report).
   */
  countsSince(mark: number): { execs: number; kills: number; archivePuts: number; total: number };
  close(): Promise<void>;
}

export async function startEngineRequestLog(targetSocket: string): Promise<EngineRequestLog> {
  const folder = await mkdtemp(path.join(tmpdir(), 'skillbox-engine-log-'));
  const socketPath = path.join(folder, 'engine.sock');
  const requests: string[] = [];
  /** Where in `requests` each kill-everything exec was created. */
  const kills: number[] = [];
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ path: targetSocket });
    open.add(client);
    client.once('close', () => open.delete(client));
    client.on('data', (chunk: Buffer) => {
      for (const match of chunk.toString('latin1').matchAll(/(?:^|\r\n\r\n)([A-Z]+) \/v[\d.]+(\S*) HTTP\/1\.1\r\n/g))
        requests.push(`${match[1]} ${match[2]}`);
      if (/"Cmd":\["\/bin\/sh","-c","kill -KILL -1/.test(chunk.toString('latin1'))) kills.push(requests.length - 1);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    requests,
    countsSince(mark) {
      const seen = requests.slice(mark);
      return {
        execs: seen.filter((line) => /^POST \/containers\/[^/]+\/exec$/.test(line)).length,
        kills: kills.filter((index) => index >= mark).length,
        archivePuts: seen.filter((line) => /^PUT \/containers\/[^/]+\/archive\?/.test(line)).length,
        total: seen.length,
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => {
          rmSync(folder, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}
