import type { ServerResponse } from 'node:http';

/** Sends headers promising `body.length` bytes, half the body, then drops the connection. */
export function answerTruncated(
  response: ServerResponse,
  body: Buffer,
  contentType = 'application/octet-stream',
): void {
  response.writeHead(200, { 'content-type': contentType, 'content-length': String(body.length) });
  response.write(body.subarray(0, Math.floor(body.length / 2)), () => response.socket?.destroy());
}

/** Never answers: the request stays open until the client gives up or the server closes. */
export function answerNever(_response: ServerResponse): void {}

/** Redirects to a different origin (port 1 on loopback, where nothing listens). */
export function answerRedirectElsewhere(response: ServerResponse): void {
  response.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
  response.end();
}
