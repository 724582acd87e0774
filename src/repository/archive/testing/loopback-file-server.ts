import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RouteHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** A body to serve, or a handler for anything unusual (redirects, lies, silence). */
export type Route = Buffer | string | RouteHandler;

export interface LoopbackFileServer {
  /** `http://127.0.0.1:<port>` with no trailing slash. */
  origin: string;
  url(path: string): string;
  /** Requests received per path. */
  hits(path: string): number;
  set(path: string, route: Route): void;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 serving fixed routes and counting requests, for URL-root tests. */
export async function startLoopbackFileServer(routes: Record<string, Route> = {}): Promise<LoopbackFileServer> {
  const table = new Map<string, Route>(Object.entries(routes));
  const counts = new Map<string, number>();
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://loopback').pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const route = table.get(path);
    if (route === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (typeof route === 'function') {
      route(request, response);
      return;
    }
    const body = Buffer.from(route);
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    hits: (path) => counts.get(path) ?? 0,
    set: (path, route) => table.set(path, route),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
