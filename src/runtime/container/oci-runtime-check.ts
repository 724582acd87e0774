import { ContainerEngineError, type EngineClient } from './engine-client.js';

/**
 * Which OCI runtime the daemon really gave a container, checked against the one asked for
 * (`ociRuntime`, such as `runsc` for gVisor). A daemon may take the field and ignore it: podman
 * 4.3's Docker-compatible API creates the container with runc whatever `HostConfig.Runtime` says,
 * and its compatible inspect answers "oci". A user who asked for gVisor's isolation would then get
 * runc's without a word, so the container is refused instead. Docker's inspect names the runtime in
 * `HostConfig.Runtime`; podman's own (libpod) inspect in `OCIRuntime`.
 */
export async function checkOciRuntime(client: EngineClient, container: string, wanted: string): Promise<void> {
  const compatible = await client.json<{ HostConfig?: { Runtime?: string } }>('GET', `/containers/${container}/json`);
  let given = compatible?.HostConfig?.Runtime;
  if (given !== wanted) {
    const libpod = await client
      .json<{ OCIRuntime?: string }>('GET', `/libpod/containers/${container}/json`)
      .catch(() => undefined);
    if (libpod?.OCIRuntime !== undefined) given = libpod.OCIRuntime;
  }
  if (given === wanted) return;
  throw new ContainerEngineError(
    `creating a container with the OCI runtime "${wanted}"`,
    undefined,
    `the daemon ran it with "${given ?? 'an unnamed runtime'}" instead (podman's Docker-compatible API ignores the runtime field; docs/runtimes.md says how to run gVisor), so it was not used`,
  );
}
