import type { SourceErrorFactory } from './skill-source-error.js';
import type { SourceFetchLimits } from './source-limits.js';

export interface HttpGetRequest {
  readonly url: string;
  /** Sent only to the origin of `url`, never to a redirect target (they may hold a token). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Origins a redirect may lead to besides the origin of `url` itself. */
  readonly redirectOrigins?: readonly string[];
  readonly limits: SourceFetchLimits;
  readonly signal?: AbortSignal | undefined;
  readonly fail: SourceErrorFactory;
}

export interface HttpGetResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Buffer;
  /** Where the bytes finally came from, after redirects. */
  readonly url: URL;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

async function readLimitedBody(response: Response, maxBytes: number, fail: SourceErrorFactory): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw fail('refused', `Content-Length ${declared} is over the ${maxBytes}-byte download limit (maxDownloadBytes)`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  if (response.body === null) return Buffer.alloc(0);
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw fail('refused', `the download passed the ${maxBytes}-byte limit (maxDownloadBytes) while streaming`);
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return Buffer.concat(chunks, total);
}

/**
 * One GET into memory within the limits. Redirects are followed by hand so each hop can be checked:
 * it must stay on the request's origin or one the caller names (a skill index or API that redirects
 * to an arbitrary host could point skillbox at the user's own network), never drop from https to
 * http, and never carries the caller's headers to another origin. One timeout covers the whole
 * exchange, body included, so a server that stalls half way fails instead of hanging the install.
 * A body cut short (fewer bytes than its Content-Length, or a broken chunked stream) is an error.
 */
export async function httpGet(request: HttpGetRequest): Promise<HttpGetResponse> {
  const { limits, fail } = request;
  request.signal?.throwIfAborted();
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = request.signal === undefined ? timeout : AbortSignal.any([request.signal, timeout]);
  const first = new URL(request.url);
  const allowedOrigins = new Set([first.origin, ...(request.redirectOrigins ?? [])]);
  let current = first;
  try {
    for (let redirects = 0; ; redirects += 1) {
      if (current.protocol !== 'https:' && current.protocol !== 'http:')
        throw fail('refused', `${current.href} is not an http(s) URL`);
      const headers: Record<string, string> = { 'accept-encoding': 'identity', 'user-agent': 'skillbox' };
      if (current.origin === first.origin) Object.assign(headers, request.headers);
      const response = await fetch(current, { headers, redirect: 'manual', signal });
      if (redirectStatuses.has(response.status)) {
        await response.body?.cancel();
        const location = response.headers.get('location');
        if (location === null) throw fail('unavailable', `HTTP ${response.status} redirect without a Location header`);
        if (redirects >= limits.maxRedirects)
          throw fail('refused', `more than ${limits.maxRedirects} redirects (maxRedirects)`);
        const next = new URL(location, current);
        if (current.protocol === 'https:' && next.protocol === 'http:')
          throw fail('refused', `redirected from https to plain http (${next.origin}); refusing to downgrade`);
        if (!allowedOrigins.has(next.origin))
          throw fail(
            'refused',
            `${current.origin} redirected to another host (${next.origin}), which this source does not fetch from`,
          );
        current = next;
        continue;
      }
      const bytes = await readLimitedBody(response, limits.maxDownloadBytes, fail);
      return { status: response.status, headers: response.headers, bytes, url: current };
    }
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason;
    if (timeout.aborted)
      throw fail('unavailable', `${current.origin} gave no complete answer within ${limits.timeoutMs} ms (timeoutMs)`);
    if (error instanceof Error && error.name === 'SkillSourceError') throw error;
    throw fail('unavailable', `the request to ${current.origin} failed: ${describeNetworkError(error)}`, error);
  }
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const message = error instanceof Error ? error.message : String(error);
  // undici reports a body that ends before its Content-Length (or a broken chunked stream) as "terminated".
  if (message === 'terminated' || cause?.code === 'UND_ERR_SOCKET')
    return 'the connection closed before the whole answer arrived (truncated download)';
  return cause?.code ?? cause?.message ?? message;
}

/** Parses a JSON answer, naming the URL when it is not JSON. */
export function parseJsonBody(response: HttpGetResponse, fail: SourceErrorFactory): unknown {
  try {
    return JSON.parse(response.bytes.toString('utf8'));
  } catch (error) {
    throw fail('unavailable', `${response.url.href} did not answer with JSON: ${(error as Error).message}`, error);
  }
}
