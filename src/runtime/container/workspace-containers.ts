import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { EngineClient } from './engine-client.js';
import { checkOciRuntime } from './oci-runtime-check.js';
import { buildTar } from './tar-archive.js';

/** Where a container's workspace volume is mounted; commands see the workspace below it. */
export const volumeMount = '/skillbox';
export const guestWorkspace = `${volumeMount}/workspace`;
export const guestStaging = `${volumeMount}/staging`;

/** How a workspace's containers are made: the image, the OCI runtime and the caps. */
export interface ContainerSettings {
  image: string;
  /** `uid:gid` every command and file operation runs as. */
  user: string;
  ociRuntime?: string;
  memoryBytes?: number;
  pids?: number;
  cpus?: number;
  tmpBytes: number;
  /** The network mode of the second container made for commands that ask for network. */
  networkMode: string;
}

/**
 * The containers of the workspaces a runtime serves, made on first use and kept warm until the
 * workspace is removed. A workspace is a named volume (so a remote daemon keeps it, and two
 * containers can share it) and one container without network; a command that asks for network
 * runs in a second container on the same volume, made when first asked for. Names derive from
 * the agent's host name and the workspace's name, so a restarted agent finds its own workspaces
 * and two agents sharing a daemon do not meet.
 */
export class WorkspaceContainers {
  private readonly ready = new Map<string, Promise<string>>();

  constructor(
    private readonly client: EngineClient,
    private readonly settings: ContainerSettings,
  ) {}

  /** The base name of a workspace's volume and containers. */
  static baseName(workspaceRoot: string): string {
    const digest = createHash('sha256').update(`${hostname()}\0${workspaceRoot}`).digest('hex').slice(0, 24);
    return `skillbox-${digest}`;
  }

  /**
   * The container running the workspace's commands (with network when asked; in `image` when one
   * other than the runtime's is given), created and started when missing. Every container of a
   * workspace shares its volume; the file helper always runs in the first, of the runtime's image.
   */
  async container(workspaceRoot: string, network: boolean, image?: string): Promise<string> {
    const base = WorkspaceContainers.baseName(workspaceRoot);
    const other = image !== undefined && image !== this.settings.image;
    // The workspace's own container lays the volume out: one in another image comes after it.
    if (other) await this.container(workspaceRoot, false);
    const name = `${base}${other ? `-image-${createHash('sha256').update(image).digest('hex').slice(0, 12)}` : ''}${network ? '-net' : ''}`;
    let pending = this.ready.get(name);
    if (pending === undefined) {
      pending = this.create(base, name, network, workspaceRoot, !other, other ? image : undefined);
      this.ready.set(name, pending);
      pending.catch(() => this.ready.delete(name));
    }
    return pending;
  }

  /**
   * Kills everything in the container by restarting it (the daemon kills its PID 1, so nothing
   * inside can refuse or outrun it); the volume and so the workspace stay as they were, /tmp is new.
   */
  async restart(name: string): Promise<void> {
    await this.client.call('POST', `/containers/${name}/restart?t=0`);
  }

  /**
   * A fresh container for one background process of the workspace, on the same volume (made
   * after the workspace's own, so the layout is there): a run's wrapper kills every process of
   * its user in its container when it ends, so a background process lives in one of its own,
   * where that kill, and its removal, reach only what it started.
   */
  async processContainer(workspaceRoot: string, network: boolean, image?: string): Promise<string> {
    await this.container(workspaceRoot, false);
    const base = WorkspaceContainers.baseName(workspaceRoot);
    const name = `${base}-process-${randomBytes(6).toString('hex')}`;
    await this.create(base, name, network, workspaceRoot, false, image);
    return name;
  }

  /** Removes one container, killing what runs in it (the daemon kills its PID 1; nothing inside can refuse). */
  async removeContainer(name: string): Promise<void> {
    await this.client.call('DELETE', `/containers/${name}?force=true&v=true`, undefined, { allow: [404] });
  }

  /** The background-process containers of the workspace the daemon has, this runtime's or an earlier one's. */
  async processContainers(workspaceRoot: string): Promise<string[]> {
    const base = WorkspaceContainers.baseName(workspaceRoot);
    return (await this.containersOf(workspaceRoot)).filter((name) => name.startsWith(`${base}-process-`));
  }

  /** Every container the daemon has on the workspace's volume (by its label). */
  private async containersOf(workspaceRoot: string): Promise<string[]> {
    const base = WorkspaceContainers.baseName(workspaceRoot);
    const filters = encodeURIComponent(JSON.stringify({ label: [`io.skillbox.workspace=${base}`] }));
    const listed = await this.client.json<Array<{ Names: string[] }>>(
      'GET',
      `/containers/json?all=true&filters=${filters}`,
    );
    return listed.flatMap((container) => container.Names.map((name) => name.replace(/^\//, '')));
  }

  /** Removes the workspace's containers (killing what runs there, background processes too) and its volume. */
  async remove(workspaceRoot: string): Promise<void> {
    const base = WorkspaceContainers.baseName(workspaceRoot);
    for (const name of new Set([base, `${base}-net`, ...(await this.containersOf(workspaceRoot))])) {
      this.ready.delete(name);
      await this.removeContainer(name);
    }
    await this.client.call('DELETE', `/volumes/${base}?force=true`, undefined, { allow: [404] });
  }

  private async create(
    volume: string,
    name: string,
    network: boolean,
    workspaceRoot: string,
    layOut = true,
    image = this.settings.image,
  ): Promise<string> {
    const { settings } = this;
    await this.client.call('POST', '/volumes/create', { Name: volume, Labels: { 'io.skillbox.workspace': volume } });
    await this.client.call(
      'POST',
      `/containers/create?name=${name}`,
      {
        Image: image,
        // The keeper: the image's init (catatonit, docker-init) waiting on a sleep, as root without any
        // capability so that a command (another uid) can neither signal nor trace it.
        Cmd: ['sleep', 'infinity'],
        Entrypoint: [],
        User: '0:0',
        Env: [],
        WorkingDir: '/',
        // The workspace's name too, so an operator (or a test) can tell whose container it is.
        Labels: { 'io.skillbox.workspace': volume, 'io.skillbox.workspace-name': workspaceRoot },
        NetworkDisabled: !network,
        HostConfig: {
          Init: true,
          NetworkMode: network ? settings.networkMode : 'none',
          ReadonlyRootfs: true,
          CapDrop: ['ALL'],
          SecurityOpt: ['no-new-privileges'],
          Privileged: false,
          Mounts: [{ Type: 'volume', Source: volume, Target: volumeMount }],
          // podman's --read-only also mounts /run and /var/tmp as unbounded tmpfs, /var/tmp writable by all:
          // both are given here small and owned by root, so /tmp (bounded) is the one writable scratch place.
          Tmpfs: {
            '/tmp': `rw,nosuid,nodev,size=${settings.tmpBytes},mode=1777`,
            '/var/tmp': 'rw,nosuid,nodev,size=1m,mode=0755',
            '/run': 'rw,nosuid,nodev,size=1m,mode=0755',
          },
          ShmSize: settings.tmpBytes,
          Ulimits: [
            { Name: 'nofile', Soft: 4096, Hard: 4096 },
            { Name: 'nproc', Soft: 2048, Hard: 2048 },
          ],
          ...(settings.memoryBytes === undefined
            ? {}
            : { Memory: settings.memoryBytes, MemorySwap: settings.memoryBytes }),
          ...(settings.pids === undefined ? {} : { PidsLimit: settings.pids }),
          ...(settings.cpus === undefined ? {} : { NanoCpus: Math.round(settings.cpus * 1e9) }),
          ...(settings.ociRuntime === undefined ? {} : { Runtime: settings.ociRuntime }),
        },
      },
      { allow: [409] },
    );
    if (settings.ociRuntime !== undefined) {
      await checkOciRuntime(this.client, name, settings.ociRuntime).catch(async (error: unknown) => {
        await this.client.call('DELETE', `/containers/${name}?force=true`, undefined, { allow: [404] });
        throw error;
      });
    }
    // 409: it exists already (a restarted agent); starting a running container answers 304.
    await this.client.call('POST', `/containers/${name}/start`, undefined, { allow: [304] });
    if (layOut) await this.layOut(name);
    return name;
  }

  /**
   * Makes the volume's layout: its root owned by root (so a command cannot put a link in place of
   * the workspace folder), the workspace and the staging area (where `put` builds trees before
   * moving them in) owned by the command's user, mode 0700. Extracting over existing folders only
   * sets their owner and mode, so doing it again on a volume in use changes nothing else.
   */
  private async layOut(container: string): Promise<void> {
    const [uid, gid] = this.settings.user.split(':').map(Number) as [number, number];
    const archive = Buffer.concat([
      buildTar([{ kind: 'directory', path: '.', mode: 0o755 }], 0, 0).subarray(0, 512),
      buildTar(
        [
          { kind: 'directory', path: 'workspace', mode: 0o700 },
          { kind: 'directory', path: 'staging', mode: 0o700 },
        ],
        uid,
        gid,
      ),
    ]);
    await this.client.call('PUT', `/containers/${container}/archive?path=${volumeMount}`, archive, {
      contentType: 'application/x-tar',
    });
  }
}
