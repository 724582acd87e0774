import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { zipArchive } from './archive/testing/archive-writers.js';
import { type LoopbackFileServer, startLoopbackFileServer } from './archive/testing/loopback-file-server.js';
import { skillMarkdown } from './testing/skill-tree.js';
import { resolveUrlRoot, urlRootCacheEntry } from './url-root.js';

const run = promisify(execFile);

function zipOf(description: string): Buffer {
  return zipArchive([{ name: 'pack/alpha/SKILL.md', data: skillMarkdown('alpha', description), unixMode: 0o100644 }]);
}

/** A server that speaks HTTP validators: it answers 304 to a matching If-None-Match or If-Modified-Since. */
interface ValidatingServer {
  server: LoopbackFileServer;
  /** Status codes sent, in order. */
  statuses: number[];
  /** Conditional request headers seen, in order. */
  conditions: (string | undefined)[];
  publish(body: Buffer, etag: string | undefined, lastModified?: string): void;
}

async function startValidatingServer(): Promise<ValidatingServer> {
  const server = await startLoopbackFileServer();
  const state: ValidatingServer = { server, statuses: [], conditions: [], publish: () => {} };
  state.publish = (body, etag, lastModified) => {
    server.set('/skills.zip', (request, response) => {
      const ifNoneMatch = request.headers['if-none-match'];
      const ifModifiedSince = request.headers['if-modified-since'];
      state.conditions.push(ifNoneMatch ?? ifModifiedSince);
      const fresh =
        (etag !== undefined && ifNoneMatch === etag) ||
        (etag === undefined && lastModified !== undefined && ifModifiedSince === lastModified);
      if (fresh) {
        state.statuses.push(304);
        response.writeHead(304).end();
        return;
      }
      state.statuses.push(200);
      response
        .writeHead(200, {
          'content-length': body.length,
          ...(etag === undefined ? {} : { etag }),
          ...(lastModified === undefined ? {} : { 'last-modified': lastModified }),
        })
        .end(body);
    });
  };
  return state;
}

let cacheDir: string;
let validating: ValidatingServer;

beforeEach(async () => {
  cacheDir = join(await mkdtemp(join(tmpdir(), 'skillbox-revalidate-')), 'cache');
  validating = await startValidatingServer();
});
afterEach(async () => {
  await validating.server.close();
  await rm(join(cacheDir, '..'), { recursive: true, force: true });
});

const options = () => ({ cacheDir, allowPrivateAddresses: true });
const skillText = (root: string) => readFile(join(root, 'pack/alpha/SKILL.md'), 'utf8');

describe('URL root revalidation', () => {
  it('sends the stored ETag back and keeps the cached copy on 304, without a second download', async () => {
    validating.publish(zipOf('Version one.'), '"v1"');
    const url = validating.server.url('/skills.zip');
    const first = await resolveUrlRoot(url, options());
    const second = await resolveUrlRoot(url, options());
    expect(second).toBe(first);
    expect(validating.statuses).toEqual([200, 304]);
    expect(validating.conditions).toEqual([undefined, '"v1"']);
    expect(await skillText(second)).toContain('Version one.');
  });

  it('replaces the cached copy when the server has a new version', async () => {
    validating.publish(zipOf('Version one.'), '"v1"');
    const url = validating.server.url('/skills.zip');
    await resolveUrlRoot(url, options());
    validating.publish(zipOf('Version two.'), '"v2"');
    const root = await resolveUrlRoot(url, options());
    expect(validating.statuses).toEqual([200, 200]);
    expect(await skillText(root)).toContain('Version two.');
    expect(root).toBe(join(urlRootCacheEntry(url, cacheDir, { allowPrivateAddresses: true }), 'root'));
  });

  it('revalidates with Last-Modified when the server sends no ETag', async () => {
    const stamp = 'Tue, 01 Dec 2026 10:00:00 GMT';
    validating.publish(zipOf('Dated.'), undefined, stamp);
    const url = validating.server.url('/skills.zip');
    await resolveUrlRoot(url, options());
    await resolveUrlRoot(url, options());
    expect(validating.statuses).toEqual([200, 304]);
    expect(validating.conditions).toEqual([undefined, stamp]);
  });

  it('works offline from a complete cache entry when the server is gone', async () => {
    validating.publish(zipOf('Cached for later.'), '"v1"');
    const url = validating.server.url('/skills.zip');
    const first = await resolveUrlRoot(url, options());
    await validating.server.close();
    const offline = await resolveUrlRoot(url, options());
    expect(offline).toBe(first);
    expect(await skillText(offline)).toContain('Cached for later.');
  });

  it('keeps the cached copy when the server answers 500', async () => {
    validating.publish(zipOf('Still good.'), '"v1"');
    const url = validating.server.url('/skills.zip');
    await resolveUrlRoot(url, options());
    validating.server.set('/skills.zip', (_request, response) => {
      validating.statuses.push(500);
      response.writeHead(500).end('down');
    });
    expect(await skillText(await resolveUrlRoot(url, options()))).toContain('Still good.');
    expect(validating.statuses).toEqual([200, 500]);
  });

  it('downloads once when 8 processes resolve one URL root at the same time', async () => {
    validating.publish(zipOf('Shared.'), '"shared"');
    const url = validating.server.url('/skills.zip');
    const module = fileURLToPath(new URL('./url-root.ts', import.meta.url));
    const script = `import { resolveUrlRoot } from ${JSON.stringify(module)}; console.log(await resolveUrlRoot(${JSON.stringify(url)}, { cacheDir: ${JSON.stringify(cacheDir)}, allowPrivateAddresses: true }));`;
    const results = await Promise.all(
      Array.from({ length: 8 }, () => run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script])),
    );
    const roots = new Set(results.map((result) => result.stdout.trim()));
    expect([...roots]).toEqual([join(urlRootCacheEntry(url, cacheDir, { allowPrivateAddresses: true }), 'root')]);
    // One full download; every other process found the entry complete and asked with its ETag.
    expect(validating.statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(validating.statuses.filter((status) => status === 304)).toHaveLength(7);
    expect(await skillText([...roots][0] as string)).toContain('Shared.');
  }, 60_000);
});
