import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { nodeHttp } from '../node-http.js';
import {
  type AddressRule,
  addressCheckingLookup,
  NonPublicAddressError,
  nonPublicAddressKind,
  nonPublicAddressMessage,
} from './url-root-address-policy.js';

export interface DownloadLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  /** Fetch from loopback, private, link-local and other non-public addresses too. */
  allowPrivateAddresses: boolean;
  /** Which addresses count as not public; the default rule, except in tests that need a stand-in. */
  addressRule?: AddressRule;
}

export interface Download {
  bytes: Buffer;
  /** The URL the bytes finally came from, after redirects. */
  finalUrl: URL;
  /** The response's validators, kept with the cache entry so the next open can revalidate instead of download. */
  etag?: string;
  lastModified?: string;
}

/** Validators of a cached copy: the request becomes conditional, and 304 Not Modified is an answer. */
export interface CachedValidators {
  etag?: string;
  lastModified?: string;
}

/** A download that failed; the message is a reason to put after the URL. */
export class DownloadFailure extends Error {}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

function checkProtocol(next: URL, previous: URL | undefined): void {
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new DownloadFailure(`redirected to ${next.protocol} URL ${next.href}; only http and https are followed`);
  }
  // A redirect that drops TLS would hand the archive to anyone on the path.
  if (previous?.protocol === 'https:' && next.protocol === 'http:') {
    throw new DownloadFailure(`redirected from https to plain http (${next.href}); refusing to downgrade`);
  }
}

async function readBody(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      response.destroy();
      throw new DownloadFailure(`the download passed the ${maxBytes}-byte limit (maxDownloadBytes) while streaming`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/**
 * One GET of `url`, answered once its headers arrive. A host that is an IP literal is judged here
 * (no lookup happens for one); a host name is judged by publicAddressLookup as the socket connects.
 */
function get(
  url: URL,
  headers: Record<string, string>,
  signal: AbortSignal,
  rule: AddressRule | undefined,
): Promise<IncomingMessage> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (rule !== undefined && isIP(host) !== 0) {
    const kind = rule(host);
    if (kind !== undefined) return Promise.reject(new NonPublicAddressError(nonPublicAddressMessage(host, host, kind)));
  }
  const request = url.protocol === 'https:' ? httpsRequest : nodeHttp().request;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: 'GET', headers, signal, ...(rule === undefined ? {} : { lookup: addressCheckingLookup(rule) }) },
      resolve,
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

function describeFetchError(error: unknown, timeoutMs: number, signal: AbortSignal): string {
  const name = (error as Error).name;
  if (signal.aborted || name === 'TimeoutError' || name === 'AbortError')
    return `no complete answer within ${timeoutMs} ms (timeoutMs)`;
  const code = (error as NodeJS.ErrnoException).code;
  return `the download failed: ${code ?? (error as Error).message}`;
}

/**
 * Fetches a URL into memory within the limits: redirects are followed by hand so they can be
 * counted and checked, every hop may reach only public addresses unless the caller allows others, `Content-Length` is
 * checked before the body is read and the streamed size
 * while it is, and one timeout covers the whole exchange, body included.
 */
export async function downloadWithLimits(url: string, limits: DownloadLimits): Promise<Download>;
export async function downloadWithLimits(
  url: string,
  limits: DownloadLimits,
  cached: CachedValidators,
): Promise<Download | 'not-modified'>;
export async function downloadWithLimits(
  url: string,
  limits: DownloadLimits,
  cached?: CachedValidators,
): Promise<Download | 'not-modified'> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let current = new URL(url);
  checkProtocol(current, undefined);
  // Credentials in the URL become Basic auth for the URL's own origin only, never for a redirect target.
  const credentials =
    current.username === '' && current.password === ''
      ? undefined
      : {
          origin: current.origin,
          header: `Basic ${Buffer.from(`${decodeURIComponent(current.username)}:${decodeURIComponent(current.password)}`).toString('base64')}`,
        };
  current.username = '';
  current.password = '';
  try {
    for (let redirects = 0; ; redirects += 1) {
      const headers: Record<string, string> = { 'accept-encoding': 'identity', 'user-agent': 'skillbox' };
      if (credentials !== undefined && current.origin === credentials.origin)
        headers.authorization = credentials.header;
      if (cached?.etag !== undefined) headers['if-none-match'] = cached.etag;
      if (cached?.lastModified !== undefined) headers['if-modified-since'] = cached.lastModified;
      // An archive is compressed already (hence identity): a transfer encoding would only hide its real size.
      let response: IncomingMessage;
      try {
        response = await get(
          current,
          headers,
          signal,
          limits.allowPrivateAddresses ? undefined : (limits.addressRule ?? nonPublicAddressKind),
        );
      } catch (error) {
        if (!(error instanceof NonPublicAddressError)) throw error;
        throw new DownloadFailure(
          redirects === 0 ? error.message : `redirected to ${current.href}, but ${error.message}`,
        );
      }
      const status = response.statusCode ?? 0;
      if (redirectStatuses.has(status)) {
        response.resume();
        const location = response.headers.location;
        if (location === undefined) throw new DownloadFailure(`HTTP ${status} redirect without a Location header`);
        if (redirects >= limits.maxRedirects)
          throw new DownloadFailure(`more than ${limits.maxRedirects} redirects (maxRedirects)`);
        const next = new URL(location, current);
        checkProtocol(next, current);
        current = next;
        continue;
      }
      if (status === 304 && cached !== undefined) {
        response.resume();
        return 'not-modified';
      }
      if (status < 200 || status > 299) {
        response.resume();
        throw new DownloadFailure(`HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`);
      }
      const declared = Number(response.headers['content-length'] ?? Number.NaN);
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        response.destroy();
        throw new DownloadFailure(
          `Content-Length ${declared} is over the ${limits.maxBytes}-byte limit (maxDownloadBytes)`,
        );
      }
      const etag = response.headers.etag;
      const lastModified = response.headers['last-modified'];
      return {
        bytes: await readBody(response, limits.maxBytes),
        finalUrl: current,
        ...(typeof etag === 'string' ? { etag } : {}),
        ...(typeof lastModified === 'string' ? { lastModified } : {}),
      };
    }
  } catch (error) {
    if (error instanceof DownloadFailure) throw error;
    throw new DownloadFailure(describeFetchError(error, limits.timeoutMs, signal), { cause: error });
  }
}
