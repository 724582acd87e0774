export interface DownloadLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
}

export interface Download {
  bytes: Buffer;
  /** The URL the bytes finally came from, after redirects. */
  finalUrl: URL;
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

async function readBody(response: Response, maxBytes: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body === null) return Buffer.alloc(0);
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new DownloadFailure(`the download passed the ${maxBytes}-byte limit (maxDownloadBytes) while streaming`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  const name = (error as Error).name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no complete answer within ${timeoutMs} ms (timeoutMs)`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.code ?? cause?.message ?? (error as Error).message;
  return `the download failed: ${detail}`;
}

/**
 * Fetches a URL into memory within the limits: redirects are followed by hand so they can be
 * counted and checked, `Content-Length` is checked before the body is read and the streamed size
 * while it is, and one timeout covers the whole exchange, body included.
 */
export async function downloadWithLimits(url: string, limits: DownloadLimits): Promise<Download> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let current = new URL(url);
  checkProtocol(current, undefined);
  // fetch refuses URLs with credentials in them; they become Basic auth for the URL's own origin only.
  const credentials =
    current.username === '' && current.password === ''
      ? undefined
      : { origin: current.origin, header: `Basic ${Buffer.from(`${decodeURIComponent(current.username)}:${decodeURIComponent(current.password)}`).toString('base64')}` };
  current.username = '';
  current.password = '';
  try {
    for (let redirects = 0; ; redirects += 1) {
      const headers: Record<string, string> = { 'accept-encoding': 'identity', 'user-agent': 'skillbox' };
      if (credentials !== undefined && current.origin === credentials.origin) headers.authorization = credentials.header;
      // An archive is compressed already (hence identity): a transfer encoding would only hide its real size.
      const response = await fetch(current, { redirect: 'manual', signal, headers });
      if (redirectStatuses.has(response.status)) {
        await response.body?.cancel();
        const location = response.headers.get('location');
        if (location === null) throw new DownloadFailure(`HTTP ${response.status} redirect without a Location header`);
        if (redirects >= limits.maxRedirects) throw new DownloadFailure(`more than ${limits.maxRedirects} redirects (maxRedirects)`);
        const next = new URL(location, current);
        checkProtocol(next, current);
        current = next;
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new DownloadFailure(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
      }
      const declared = Number(response.headers.get('content-length') ?? Number.NaN);
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        await response.body?.cancel();
        throw new DownloadFailure(`Content-Length ${declared} is over the ${limits.maxBytes}-byte limit (maxDownloadBytes)`);
      }
      return { bytes: await readBody(response, limits.maxBytes), finalUrl: current };
    }
  } catch (error) {
    if (error instanceof DownloadFailure) throw error;
    throw new DownloadFailure(describeFetchError(error, limits.timeoutMs), { cause: error });
  }
}
