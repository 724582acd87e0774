import type { ContainerRuntimeOptions } from '../runtime/container/container-runtime.js';
import type { RuntimeKind } from '../runtime/create-runtime.js';
import { CliUsageError } from './command.js';

/** The option definitions of the container flags, for parseCommandArguments. */
export const containerFlagOptions = {
  image: { type: 'string' },
  engine: { type: 'string' },
  'oci-runtime': { type: 'string' },
  'allow-image': { type: 'string', multiple: true },
} as const;

/** Help lines of the container flags, the same in every command that has them. */
export const containerFlagsHelp = `  --image IMAGE       with --runtime container: the image scripts run in (never pulled by skillbox;
                      it needs bash, coreutils and python3, docs/runtimes.md)
  --engine ADDRESS    with --runtime container: the Engine API, a socket path or unix:///path or
                      tcp://host:port (default: DOCKER_HOST, else /var/run/docker.sock)
  --oci-runtime NAME  with --runtime container: the daemon's OCI runtime, such as runsc (gVisor)
  --allow-image IMAGE with --runtime container: an image a skill may name for its scripts
                      (metadata skillbox-image) besides --image; repeatable`;

/**
 * The container runtime's options from the flags: `--image` is required with `--runtime container`,
 * and the container flags are refused with any other runtime (they would be silently ignored).
 */
export function containerOptionsFromFlags(
  runtime: RuntimeKind,
  values: {
    image?: string | undefined;
    engine?: string | undefined;
    'oci-runtime'?: string | undefined;
    'allow-image'?: string[] | undefined;
  },
): ContainerRuntimeOptions | undefined {
  const given = (['image', 'engine', 'oci-runtime', 'allow-image'] as const).filter(
    (name) => values[name] !== undefined,
  );
  if (runtime !== 'container') {
    if (given.length > 0) throw new CliUsageError(`--${given[0]} applies only to --runtime container`);
    return undefined;
  }
  if (values.image === undefined || values.image.trim() === '')
    throw new CliUsageError('--runtime container needs --image IMAGE (an image the daemon already has or can pull)');
  const engine = values.engine;
  return {
    image: values.image,
    ...(engine === undefined ? {} : engine.includes('://') ? { host: engine } : { socketPath: engine }),
    ...(values['oci-runtime'] === undefined ? {} : { ociRuntime: values['oci-runtime'] }),
    ...(values['allow-image'] === undefined ? {} : { allowedImages: values['allow-image'] }),
  };
}
