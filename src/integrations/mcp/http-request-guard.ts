import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Why a request is refused before it reaches MCP: the HTTP status and a message for the client. */
export interface RequestRefusal {
  status: number;
  message: string;
}

/** What the guard lets through: which Host and Origin headers, and the bearer token if one is required. */
export interface RequestGuardSettings {
  /** Host header values accepted (lowercase `name:port`). */
  allowedHosts: ReadonlySet<string>;
  /** Origin header values accepted when the header is present (lowercase `scheme://name:port`). */
  allowedOrigins: ReadonlySet<string>;
  token?: string;
}

const loopbackNames = ['127.0.0.1', 'localhost', '[::1]'];

/** The Host and Origin values a server on `host:port` answers by default: its loopback names, or the host it was bound to. */
export function defaultAllowedHosts(host: string, port: number): { hosts: string[]; origins: string[] } {
  const names = new Set(isLoopbackHost(host) ? loopbackNames : [host.includes(':') ? `[${host}]` : host]);
  const hosts = [...names].map((name) => `${name}:${port}`.toLowerCase());
  return { hosts, origins: hosts.flatMap((hostPort) => [`http://${hostPort}`, `https://${hostPort}`]) };
}

/** True for the addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

function sameSecret(given: string, expected: string): boolean {
  // Hashing first gives equal lengths, so the comparison takes the same time whatever was sent.
  const left = createHash('sha256').update(given).digest();
  const right = createHash('sha256').update(expected).digest();
  return timingSafeEqual(left, right);
}

/**
 * Checks a request before any MCP handling. Host and Origin stop DNS rebinding: a web page whose
 * name was re-pointed at 127.0.0.1 sends its own name as Host and its own origin as Origin, so a
 * browser on this machine cannot be used to reach a loopback server. The bearer token, when set,
 * is compared in constant time.
 */
export function refuseRequest(request: IncomingMessage, settings: RequestGuardSettings): RequestRefusal | undefined {
  const host = request.headers.host?.toLowerCase();
  if (host === undefined || !settings.allowedHosts.has(host))
    return { status: 403, message: `Host ${JSON.stringify(request.headers.host ?? '')} is not served here` };
  const origin = request.headers.origin;
  if (origin !== undefined && !settings.allowedOrigins.has(origin.toLowerCase()))
    return { status: 403, message: `Origin ${JSON.stringify(origin)} is not allowed` };
  if (settings.token !== undefined) {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (match === null || !sameSecret(match[1] as string, settings.token))
      return { status: 401, message: 'a valid bearer token is required (Authorization: Bearer TOKEN)' };
  }
  return undefined;
}
