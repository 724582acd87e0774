import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** Why a request was turned away, and the status it gets. */
export interface Refusal {
  status: number;
  reason: string;
}

/**
 * Whether the inspector may serve `host` (the address it binds) without a token: only the usual
 * loopback names. Any other address, even another of 127.0.0.0/8, gets a token: what else can
 * reach it (another container on a shared network namespace, a forwarded port) is not known here.
 */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '127.0.0.1';
}

/**
 * The checks every inspector request passes before anything is read:
 *
 * - the Host header names this server (a loopback name or the bound address, with its port): a page
 *   on another site that re-points its own name at 127.0.0.1 (DNS rebinding) sends its own name;
 * - a request a browser marks as coming from another site (an `Origin` that is not this server,
 *   `Sec-Fetch-Site: cross-site`) is refused, so no page elsewhere reads sessions through a
 *   visitor's browser;
 * - off loopback, the random token printed with the URL must come with it (query `token` or
 *   `Authorization: Bearer`): anyone who can reach the port would otherwise read every session.
 */
export function createRequestGuard(options: { host: string; port: () => number; token?: string }) {
  const allowedHosts = () => {
    const port = options.port();
    const names = ['127.0.0.1', 'localhost', '[::1]'];
    if (!isLoopbackHost(options.host)) names.push(isIP(options.host) === 6 ? `[${options.host}]` : options.host);
    return new Set(names.map((name) => `${name}:${port}`));
  };
  const expected = options.token === undefined ? undefined : Buffer.from(options.token);
  return (request: IncomingMessage, url: URL): Refusal | undefined => {
    const hosts = allowedHosts();
    const host = request.headers.host?.toLowerCase();
    if (host === undefined || !hosts.has(host))
      return { status: 421, reason: `the Host header ${JSON.stringify(host ?? '')} does not name this inspector` };
    const origin = request.headers.origin;
    if (
      origin !== undefined &&
      !(origin.startsWith('http://') && hosts.has(origin.slice('http://'.length).toLowerCase()))
    )
      return { status: 403, reason: `requests from ${origin} are refused: only the inspector's own pages may ask` };
    if (request.headers['sec-fetch-site'] === 'cross-site')
      return { status: 403, reason: 'cross-site requests are refused' };
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return { status: 405, reason: 'the inspector only reads: GET and HEAD' };
    if (expected !== undefined) {
      const authorization = request.headers.authorization;
      const given =
        url.searchParams.get('token') ??
        (authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined);
      const candidate = Buffer.from(given ?? '');
      if (candidate.length !== expected.length || !timingSafeEqual(candidate, expected))
        return { status: 401, reason: 'this inspector is not on loopback: open the URL it printed, with its token' };
    }
    return undefined;
  };
}
