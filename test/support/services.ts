import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { detectSandboxSupport } from '../../src/runtime/sandbox-support.js';
import { haproxyInstalled } from './haproxy.js';
import { hasRestateServer, restateServerMissing } from './restate-server.js';

/*
 * What the tests that need something outside the repository look for, and how to provide it. A
 * test file skips its tests with `describe.runIf(...)` when its service is absent; the global
 * setup (test/support/global-setup.ts) prints one line per absent service, and fails the run
 * instead when CI=true, where every service is installed and a skip would hide a broken one.
 */

/** The shared corpus of real public skills: SKILLBOX_CORPUS, else `shared/corpus` beside the repository. */
export const corpusRoot: string = resolve(
  process.env.SKILLBOX_CORPUS ?? fileURLToPath(new URL('../../../shared/corpus', import.meta.url)),
);

export const postgresUrl: string =
  process.env.SKILLBOX_TEST_POSTGRES_URL ?? 'postgres://skillbox:skillbox@127.0.0.1:5432/skillbox_test';
export const redisUrl: string = process.env.SKILLBOX_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface ServiceCheck {
  name: string;
  available: boolean;
  /** What is missing and how to provide it, for the one line the global setup prints. */
  howToRun: string;
  /**
   * False when this user cannot be given the service even on a CI machine that installed it (the
   * rootful container engine's socket is root's only): then its absence is a skip with one line
   * under CI=true too, not a failure. Default true.
   */
  requiredUnderCi?: boolean;
}

/** Whether something accepts TCP connections at the URL's host and port (within a second). */
export function reachable(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((done) => {
    const socket = connect({
      host: hostname || '127.0.0.1',
      port: port === '' ? defaultPort : Number(port),
      timeout: 1000,
    });
    const finish = (result: boolean) => {
      socket.destroy();
      done(result);
    };
    socket.once('connect', () => finish(true));
    socket.once('timeout', () => finish(false));
    socket.once('error', () => finish(false));
  });
}

export const hasCorpus: boolean = existsSync(corpusRoot);
export const postgresReachable: boolean = await reachable(postgresUrl, 5432);
export const redisReachable: boolean = await reachable(redisUrl, 6379);
export const sandboxWorks: boolean = detectSandboxSupport().available;
export const hasHaproxy: boolean = haproxyInstalled();

/** The Engine API socket the container runtime tests use (podman's `podman system service`). */
export const containerSocket: string = process.env.SKILLBOX_TEST_CONTAINER_SOCKET ?? '/run/podman/podman.sock';
/** The image they run, built locally by .ci/services.sh (never pulled). */
export const containerImage: string = process.env.SKILLBOX_TEST_CONTAINER_IMAGE ?? 'localhost/skillbox-test:bookworm';

/** Whether the socket answers and has the test image (a socket this user cannot open counts as absent). */
function containerEngineReady(socketPath: string): Promise<boolean> {
  return new Promise((done) => {
    const probe = httpRequest(
      { socketPath, path: `/v1.41/images/${encodeURIComponent(containerImage)}/json`, timeout: 3000 },
      (response) => {
        response.resume();
        done(response.statusCode === 200);
      },
    );
    probe.once('error', () => done(false));
    probe.once('timeout', () => {
      probe.destroy();
      done(false);
    });
    probe.end();
  });
}

export const containerEngineWorks: boolean = await containerEngineReady(containerSocket);

/**
 * Docker's own daemon, for the smaller set of container tests that shows both daemons work: on a
 * socket of its own (.ci/dockerd.sh starts it only for them, and loads the test image into it).
 */
export const dockerdSocket: string = process.env.SKILLBOX_TEST_DOCKERD_SOCKET ?? '/run/skillbox-docker.sock';
export const dockerdWorks: boolean = await containerEngineReady(dockerdSocket);

/** Whether that dockerd knows gVisor's `runsc` as an OCI runtime (.ci/dockerd.sh registers Debian's). */
function engineKnowsRuntime(socketPath: string, runtime: string): Promise<boolean> {
  return new Promise((done) => {
    const probe = httpRequest({ socketPath, path: '/v1.41/info', timeout: 3000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        try {
          const info = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Runtimes?: Record<string, unknown> };
          done(response.statusCode === 200 && Object.hasOwn(info.Runtimes ?? {}, runtime));
        } catch {
          done(false);
        }
      });
    });
    probe.once('error', () => done(false));
    probe.once('timeout', () => {
      probe.destroy();
      done(false);
    });
    probe.end();
  });
}

export const dockerdHasGvisor: boolean = dockerdWorks && (await engineKnowsRuntime(dockerdSocket, 'runsc'));

/** A headless Chromium for the inspector's page tests (Debian's `chromium`, driven by playwright-core). */
export const chromiumPath: string = process.env.SKILLBOX_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const hasChromium: boolean = existsSync(chromiumPath);

/** Every service, with the line that says how to run its tests. */
export function serviceChecks(): ServiceCheck[] {
  const support = detectSandboxSupport();
  return [
    {
      name: 'corpus',
      available: hasCorpus,
      howToRun: `the skill corpus is not at ${corpusRoot}: set SKILLBOX_CORPUS=/path/to/corpus (or put shared/corpus beside the repository)`,
    },
    {
      name: 'PostgreSQL',
      available: postgresReachable,
      howToRun: `nothing answers at ${new URL(postgresUrl).host}: run bash .ci/services.sh, or set SKILLBOX_TEST_POSTGRES_URL`,
    },
    {
      name: 'Redis',
      available: redisReachable,
      howToRun: `nothing answers at ${new URL(redisUrl).host}: run bash .ci/services.sh, or set SKILLBOX_TEST_REDIS_URL`,
    },
    {
      name: 'sandbox',
      available: support.available,
      howToRun: `${support.available ? '' : support.reason}: install bubblewrap (apt-get install bubblewrap) on Linux`,
    },
    {
      name: 'Restate server',
      available: hasRestateServer,
      howToRun: restateServerMissing,
    },
    {
      name: 'haproxy',
      available: hasHaproxy,
      howToRun:
        'haproxy is not installed (the failover tests put it in front of their workers): run bash .ci/services.sh',
    },
    {
      name: 'Chromium',
      available: hasChromium,
      howToRun: `no Chromium at ${chromiumPath} for the inspector's page tests: run bash .ci/services.sh (apt-get install chromium), or set SKILLBOX_TEST_CHROMIUM`,
    },
    {
      name: 'container engine',
      available: containerEngineWorks,
      // The security suite's second run, as nobody, cannot open the rootful socket: that run skips them.
      requiredUnderCi: process.getuid?.() === 0 || process.env.SKILLBOX_TEST_CONTAINER_SOCKET !== undefined,
      howToRun: `no Engine API with the image ${containerImage} answers at ${containerSocket} (as root: run bash .ci/services.sh; as another user the rootful socket is closed), or set SKILLBOX_TEST_CONTAINER_SOCKET`,
    },
    {
      name: 'dockerd',
      available: dockerdWorks,
      // Started only for its own tests (.ci/dockerd.sh sets SKILLBOX_TEST_DOCKERD_SOCKET): the other runs skip them.
      requiredUnderCi: process.env.SKILLBOX_TEST_DOCKERD_SOCKET !== undefined,
      howToRun: `no dockerd with the image ${containerImage} answers at ${dockerdSocket} (as root: bash .ci/dockerd.sh starts one and runs its tests), or set SKILLBOX_TEST_DOCKERD_SOCKET`,
    },
    {
      name: 'gVisor',
      available: dockerdHasGvisor,
      requiredUnderCi: process.env.SKILLBOX_TEST_DOCKERD_SOCKET !== undefined,
      howToRun: `the dockerd at ${dockerdSocket} has no OCI runtime "runsc" (bash .ci/services.sh installs Debian's runsc, bash .ci/dockerd.sh registers it)`,
    },
  ];
}
