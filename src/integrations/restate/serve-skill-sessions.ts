import { createServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { SkillboxConfigError } from '../../config/config-error.js';
import { loadRestateSdk } from './load-restate-sdk.js';
import type { SkillSessionObject } from './skill-session-object.js';

/** Options of `serveSkillSessions`. */
export interface ServeSkillSessionsOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Interface to listen on; default `127.0.0.1` (put a proxy or the Restate server's network in front). */
  host?: string;
}

/** A running Restate deployment of session objects. */
export interface SkillSessionServer {
  /** The deployment URL to register with the Restate server (`POST <admin>/deployments {"uri": url}`). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Serves session objects as a Restate deployment over HTTP/2 (h2c), the protocol the Restate server calls. */
export async function serveSkillSessions(
  objects: readonly SkillSessionObject[],
  options: ServeSkillSessionsOptions = {},
): Promise<SkillSessionServer> {
  if (!Array.isArray(objects) || objects.length === 0)
    throw new SkillboxConfigError('serveSkillSessions', [
      { option: 'objects', problem: 'must list at least one object from createSkillSessionObject' },
    ]);
  const sdk = await loadRestateSdk('serveSkillSessions');
  const server = createServer(sdk.createEndpointHandler({ services: objects.map((object) => object.definition) }));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}
