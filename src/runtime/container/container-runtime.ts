import { validateOptions } from '../../config/validate-options.js';
import { RuntimeCommandError } from '../errors.js';
import type { RuntimeProcess, RuntimeProcessCommand } from '../runtime-process.js';
import type { WorkspaceRuntime } from '../runtime-types.js';
import { startContainerProcess } from './container-process.js';
import { ContainerRunner } from './container-runner.js';
import { containerRuntimeOptionsSchema } from './container-runtime-options-schema.js';
import { ContainerWorkspaceFiles } from './container-workspace-files.js';
import { type EngineAddress, EngineClient, parseEngineHost } from './engine-client.js';
import { guestPath } from './guest-path.js';
import { WorkspaceContainers } from './workspace-containers.js';

/** Options of `createContainerRuntime`. */
export interface ContainerRuntimeOptions {
  /** The image commands run in (it needs a POSIX shell, coreutils, GNU `env` and python3, docs/runtimes.md). */
  image: string;
  /**
   * Images a command may name (`RuntimeCommand.image`, from a skill's `metadata.skillbox-image`)
   * besides `image`; a command naming another is refused (field `image`), and requirement gating
   * then marks or hides the skill. Default none: every command runs in `image`.
   */
  allowedImages?: string[];
  /** The Engine API's unix socket, such as `/var/run/docker.sock` or `/run/podman/podman.sock`. */
  socketPath?: string;
  /** `unix:///path` or `tcp://host:port` (as DOCKER_HOST); default: `socketPath`, else DOCKER_HOST, else `/var/run/docker.sock`. */
  host?: string;
  /** The daemon's OCI runtime to use, such as `runsc` for gVisor; default: the daemon's own. */
  ociRuntime?: string;
  /** `uid:gid` (numbers) that commands and file operations run as; default `65534:65534`, never 0. */
  user?: string;
  /** Memory of each workspace container in bytes (swap included); default 512 MiB, null for none. */
  memoryBytes?: number | null;
  /** Processes of each workspace container at most; default 256, null for none. */
  pids?: number | null;
  /** CPUs of each workspace container; default 1, null for none. */
  cpus?: number | null;
  /** Size of the container's /tmp (memory-backed); default 64 MiB. */
  tmpBytes?: number;
  /** Network mode of the container used for commands that ask for network; default `bridge`. */
  network?: string;
}

/** A container runtime; `close()` drops its connections to the daemon (the workspaces' containers stay). */
export interface ContainerRuntime extends WorkspaceRuntime {
  close(): void;
}

const defaults = { memoryBytes: 512 * 1024 * 1024, pids: 256, cpus: 1, tmpBytes: 64 * 1024 * 1024 };

/**
 * A `WorkspaceRuntime` whose commands run in Docker or Podman containers through the Docker
 * Engine API (docs/runtimes.md, "The container runtime"): one container per workspace, made on
 * first use and kept warm until the workspace is removed, an exec per command, the workspace on a
 * volume reached only through the API, so the daemon may be on another machine.
 */
export function createContainerRuntime(options: ContainerRuntimeOptions): ContainerRuntime {
  validateOptions('createContainerRuntime', containerRuntimeOptionsSchema, options);
  const address: EngineAddress =
    options.socketPath !== undefined
      ? { socketPath: options.socketPath }
      : parseEngineHost(options.host ?? process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock');
  const client = new EngineClient(address);
  const user = options.user ?? '65534:65534';
  const limit = (value: number | null | undefined, fallback: number) =>
    value === null ? undefined : (value ?? fallback);
  const containers = new WorkspaceContainers(client, {
    image: options.image,
    user,
    ...(options.ociRuntime === undefined ? {} : { ociRuntime: options.ociRuntime }),
    ...optional('memoryBytes', limit(options.memoryBytes, defaults.memoryBytes)),
    ...optional('pids', limit(options.pids, defaults.pids)),
    ...optional('cpus', limit(options.cpus, defaults.cpus)),
    tmpBytes: options.tmpBytes ?? defaults.tmpBytes,
    networkMode: options.network ?? 'bridge',
  });
  const runner = new ContainerRunner(client, containers, user);
  const files = (workspaceRoot: string) => new ContainerWorkspaceFiles(client, containers, workspaceRoot, user);
  /** The background processes started and not yet ended, by workspace. */
  const processes = new Map<string, Set<RuntimeProcess>>();

  const allowedImages = new Set([options.image, ...(options.allowedImages ?? [])]);
  /** Refuses an image the options do not allow: a skill cannot pick an arbitrary image. */
  const refuseImage = (command: RuntimeProcessCommand): void => {
    if (command.image !== undefined && !allowedImages.has(command.image))
      throw new RuntimeCommandError(
        'image',
        `"${command.image}" is not an image this runtime may run (its image and allowedImages: ${[...allowedImages].join(', ')})`,
      );
  };

  const start = async (command: RuntimeProcessCommand): Promise<RuntimeProcess> => {
    if ((command.readOnlyPaths ?? []).length > 0)
      throw new RuntimeCommandError('readOnlyPaths', 'the container runtime cannot show host paths to its commands');
    refuseImage(command);
    // Refused before anything starts: the wrapper checks again when the process starts.
    const relative = command.cwd === command.workspaceRoot ? '' : command.cwd.slice(command.workspaceRoot.length + 1);
    const [found] = await files(command.workspaceRoot).resolve([relative]);
    if (found?.inside !== true || found.entry.kind !== 'directory')
      throw new RuntimeCommandError('cwd', `"${command.cwd}" does not exist or leads out of the workspace`);
    const guestCwd = guestPath(command.cwd, command.workspaceRoot);
    const handle = await startContainerProcess({ client, containers, user, guestCwd }, command);
    const running = processes.get(command.workspaceRoot) ?? new Set();
    processes.set(command.workspaceRoot, running.add(handle));
    void handle.exited.then(() => running.delete(handle));
    return handle;
  };

  /** Kills the workspace's processes, and removes process containers an earlier runtime object left. */
  const stopProcesses = async (workspaceRoot: string): Promise<void> => {
    await Promise.all([...(processes.get(workspaceRoot) ?? [])].map((handle) => handle.kill()));
    processes.delete(workspaceRoot);
    for (const name of await containers.processContainers(workspaceRoot)) await containers.removeContainer(name);
  };

  return {
    kind: 'container',
    isolated: true,
    guestPath,
    run: async (command) => {
      refuseImage(command);
      return runner.run(command);
    },
    files,
    start,
    stopProcesses,
    close: () => client.close(),
  };
}

function optional<Key extends string>(key: Key, value: number | undefined): { [K in Key]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [K in Key]?: number };
}
