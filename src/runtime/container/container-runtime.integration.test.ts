import { describe, expect, it } from 'vitest';
import { containerEngineWorks, containerImage, containerSocket } from '../../../test/support/services.js';
import { createRuntime } from '../create-runtime.js';
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
