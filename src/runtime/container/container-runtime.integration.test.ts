import { describe } from 'vitest';
import { containerEngineWorks, containerImage, containerSocket } from '../../../test/support/services.js';
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
