import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  containerEngineWorks,
  containerImage,
  containerSocket,
  dockerdSocket,
  dockerdWorks,
} from '../../../test/support/services.js';
import { createRuntime } from '../create-runtime.js';
import { findExecutable } from '../find-executable.js';
import { describeRuntimeConformance } from '../testing/runtime-conformance.js';
import { type ContainerRuntime, createContainerRuntime } from './container-runtime.js';

// Under CI=true the global setup fails the run when the engine or the image is missing.
describe.runIf(containerEngineWorks)('container runtime (podman)', () => {
  describeRuntimeConformance(
    'container',
    () => createContainerRuntime({ image: containerImage, socketPath: containerSocket }),
    (runtime) => (runtime as ContainerRuntime).close(),
  );
});

// The same suite against Docker's own daemon (dockerd 20.10 on its own socket), to show both daemons work.
describe.runIf(dockerdWorks)('container runtime (dockerd)', () => {
  describeRuntimeConformance(
    'container (dockerd)',
    () => createContainerRuntime({ image: containerImage, socketPath: dockerdSocket }),
    (runtime) => (runtime as ContainerRuntime).close(),
  );
});

describe('createRuntime({ kind: "container" })', () => {
  it('refuses a container kind without container options, and container options with another kind, by name', () => {
    expect(() => createRuntime({ kind: 'container' })).toThrow(/container.*required with kind "container"/);
    expect(() => createRuntime({ kind: 'local', container: { image: 'x' } })).toThrow(
      /applies only to kind "container"/,
    );
    expect(() => createRuntime({ kind: 'container', container: { image: 'x', user: '0:0' } })).toThrow(
      /container\.user.*not root/,
    );
    expect(() => createRuntime({ kind: 'container', container: { image: 'x', host: 'http://a' } })).toThrow(
      /container\.host/,
    );
  });

  it.runIf(containerEngineWorks)(
    'builds a container runtime whose commands run in the image, as nobody, without network',
    async () => {
      const runtime = createRuntime({
        kind: 'container',
        container: { image: containerImage, socketPath: containerSocket },
      });
      const workspace = `/skillbox-factory-test-${process.pid}`;
      try {
        expect(runtime).toMatchObject({ kind: 'container', isolated: true });
        const result = await runtime.run({
          workspaceRoot: workspace,
          cwd: workspace,
          env: { PATH: '/usr/bin:/bin' },
          timeoutMs: 10_000,
          maxOutputBytes: 4096,
          command: 'id -u; cat /sys/class/net/*/address 2>/dev/null | wc -l; pwd',
        });
        expect(result.stdout).toBe('65534\n1\n/skillbox/workspace\n');
      } finally {
        await runtime.files(workspace).remove('');
        (runtime as ContainerRuntime).close();
      }
    },
  );
});

// A daemon reached over TCP, as one on another machine would be: the runtime has no host path of
// the workspace (the conformance suite's host folder stays empty), only the Engine API. A second
// podman service on a loopback port serves the same storage.
const podmanProgram = findExecutable('podman');
describe.runIf(containerEngineWorks && podmanProgram !== undefined)('container runtime over TCP', () => {
  let service: ChildProcess | undefined;
  describeRuntimeConformance(
    'container (tcp)',
    async () => {
      const port = await freePort();
      // Configured as .ci/services.sh configures the unix socket's service (exit_command_delay = 0), when it is there.
      const conf = '/etc/skillbox/podman-containers.conf';
      service = spawn(podmanProgram as string, ['system', 'service', '--time=0', `tcp://127.0.0.1:${port}`], {
        stdio: 'ignore',
        env: existsSync(conf) ? { ...process.env, CONTAINERS_CONF: conf } : process.env,
      });
      const runtime = createContainerRuntime({ image: containerImage, host: `tcp://127.0.0.1:${port}` });
      for (let attempt = 0; attempt < 100; attempt += 1) {
        if (await pingable(port)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return runtime;
    },
    (runtime) => {
      (runtime as ContainerRuntime).close();
      service?.kill('SIGTERM');
    },
  );
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function pingable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = request({ host: '127.0.0.1', port, path: '/v1.41/_ping', timeout: 1000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    probe.once('error', () => resolve(false));
    probe.end();
  });
}
