import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { SkillboxError } from '../../errors.js';
import { nodeHttp } from '../../node-http.js';

/**
 * Where the Docker Engine API is served: a unix socket (Docker's `/var/run/docker.sock`, podman's
 * `podman system service` socket) or a TCP address (`tcp://host:2375`, as in DOCKER_HOST).
 */
export type EngineAddress = { socketPath: string } | { host: string; port: number };

/** The Engine API answered with an error status, or could not be reached. */
export class ContainerEngineError extends SkillboxError {
  readonly status: number | undefined;

  constructor(what: string, status: number | undefined, detail: string) {
    super(
      'CONTAINER_ENGINE_FAILED',
      `container engine: ${what} failed${status === undefined ? '' : ` (${status})`}: ${detail}`,
    );
    this.status = status;
  }
}

/** Parses a DOCKER_HOST-style value (`unix:///path`, `tcp://host:port`) into an address. */
export function parseEngineHost(value: string): EngineAddress {
  if (value.startsWith('unix://')) return { socketPath: value.slice('unix://'.length) };
  const url = new URL(value.replace(/^tcp:/, 'http:'));
  if (url.protocol !== 'http:' || url.hostname === '')
    throw new ContainerEngineError(
      'reading the host address',
      undefined,
      `"${value}" is not unix:///path or tcp://host:port`,
    );
  return { host: url.hostname, port: url.port === '' ? 2375 : Number(url.port) };
}

/** The parts of one answer the runtime needs: its status and its body (bounded by the caller). */
export interface EngineResponse {
  status: number;
  body: Buffer;
}

/**
 * The project's own Engine API client, instead of dockerode: no dependency, only the calls the
 * container runtime makes (volumes, containers, exec, archive), and every body it reads bounded,
 * so a daemon (possibly remote) answering without end cannot fill the agent's memory. API 1.41 is
 * what Docker 20.10 and podman 4's compatible service both speak.
 */
export class EngineClient {
  private readonly agent = new (nodeHttp().Agent)({ keepAlive: true, maxSockets: 16 });

  constructor(
    private readonly address: EngineAddress,
    private readonly apiVersion = 'v1.41',
  ) {}

  /** Sends one request; resolves with the raw response stream (the caller reads it, bounded). */
  open(method: string, path: string, body?: Buffer | object, contentType?: string): Promise<IncomingMessage> {
    const payload =
      body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body), 'utf8');
    const headers: Record<string, string | number> = {};
    if (payload !== undefined) {
      headers['Content-Type'] = contentType ?? 'application/json';
      headers['Content-Length'] = payload.length;
    }
    const target = 'socketPath' in this.address ? { socketPath: this.address.socketPath } : this.address;
    return new Promise((resolve, reject) => {
      const outgoing = nodeHttp().request(
        { ...target, agent: this.agent, method, path: `/${this.apiVersion}${path}`, headers },
        resolve,
      );
      outgoing.once('error', (error) =>
        reject(new ContainerEngineError(`${method} ${path}`, undefined, `cannot reach the engine: ${error.message}`)),
      );
      outgoing.end(payload);
    });
  }

  /**
   * Sends one request asking the daemon to take the connection over (`Upgrade: tcp`, answered
   * 101) and resolves with the socket: an exec started this way carries its output one way and
   * its stdin the other. The body is read whole by the daemon before it takes over. Not pooled.
   */
  upgrade(method: string, path: string, body: object): Promise<Socket> {
    const payload = Buffer.from(JSON.stringify(body), 'utf8');
    const target = 'socketPath' in this.address ? { socketPath: this.address.socketPath } : this.address;
    return new Promise((resolve, reject) => {
      const outgoing = nodeHttp().request({
        ...target,
        method,
        path: `/${this.apiVersion}${path}`,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': payload.length,
          Connection: 'Upgrade',
          Upgrade: 'tcp',
        },
      });
      outgoing.once('upgrade', (_response, socket: Socket, head: Buffer) => {
        if (head.length > 0) socket.unshift(head);
        resolve(socket);
      });
      outgoing.once('response', (response) => {
        response.resume();
        reject(
          new ContainerEngineError(
            `${method} ${path}`,
            response.statusCode,
            'the daemon did not take the connection over',
          ),
        );
      });
      outgoing.once('error', (error) =>
        reject(new ContainerEngineError(`${method} ${path}`, undefined, `cannot reach the engine: ${error.message}`)),
      );
      outgoing.end(payload);
    });
  }

  /** Sends one request and reads at most `maxBytes` of the answer; an error status is thrown. */
  async call(method: string, path: string, body?: Buffer | object, options: CallOptions = {}): Promise<EngineResponse> {
    const response = await this.open(method, path, body, options.contentType);
    const data = await readBounded(response, options.maxBytes ?? 1024 * 1024, `${method} ${path}`);
    const status = response.statusCode ?? 0;
    if (status >= 400 && !(options.allow ?? []).includes(status)) {
      let detail = data.toString('utf8').slice(0, 500);
      try {
        detail = (JSON.parse(detail) as { message?: string }).message ?? detail;
      } catch {
        // Not JSON: the text itself says what went wrong.
      }
      throw new ContainerEngineError(`${method} ${path.split('?')[0]}`, status, detail);
    }
    return { status, body: data };
  }

  /** `call`, parsing the answer as JSON. */
  async json<T>(method: string, path: string, body?: object, options: CallOptions = {}): Promise<T> {
    const { body: data } = await this.call(method, path, body, options);
    return (data.length === 0 ? undefined : JSON.parse(data.toString('utf8'))) as T;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** How `EngineClient.call` treats an answer: statuses that are not errors, its size cap, the body's type. */
export interface CallOptions {
  allow?: number[];
  maxBytes?: number;
  contentType?: string;
}

/** Reads a whole response of at most `maxBytes`, destroying it past that. */
export function readBounded(response: IncomingMessage, maxBytes: number, what: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        response.destroy();
        reject(new ContainerEngineError(what, response.statusCode, `the answer is larger than ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    response.once('end', () => resolve(Buffer.concat(chunks, size)));
    response.once('error', (error) => reject(new ContainerEngineError(what, response.statusCode, error.message)));
  });
}
