import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../config/config-error.js';
import { tarArchive, tarGzArchive, zipArchive } from './archive/testing/archive-writers.js';
import {
  type LoopbackFileServer,
  type RouteHandler,
  startLoopbackFileServer,
} from './archive/testing/loopback-file-server.js';
import { rejectionOf } from './archive/testing/rejection-of.js';
import { StrictRepositoryError } from './errors.js';
import { FsSkillRepository } from './fs-skill-repository.js';
import { skillMarkdown } from './testing/skill-tree.js';
import { resolveUrlRoot, urlRootCacheEntry, urlRootSentinelName } from './url-root.js';
import { UrlRootError } from './url-root-errors.js';

const run = promisify(execFile);

const skillFiles = [
  { name: 'pack/alpha/SKILL.md', data: skillMarkdown('alpha', 'First skill.') },
  { name: 'pack/alpha/docs/guide.md', data: '# Guide\n' },
  { name: 'pack/alpha/scripts/run.sh', data: '#!/bin/sh\necho alpha\n', mode: 0o755 },
  { name: 'pack/beta/SKILL.md', data: skillMarkdown('beta', 'Second skill.') },
];
const zipBytes = zipArchive(
  skillFiles.map((file) => ({ name: file.name, data: file.data, unixMode: 0o100000 | (file.mode ?? 0o644) })),
);

let server: LoopbackFileServer;
let cacheDir: string;

beforeAll(async () => {
  server = await startLoopbackFileServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  cacheDir = join(await mkdtemp(join(tmpdir(), 'skillbox-url-cache-')), 'cache');
});
afterEach(async () => {
  await rm(join(cacheDir, '..'), { recursive: true, force: true });
});

async function cacheListing(): Promise<string[]> {
  return readdir(cacheDir).catch(() => []);
}

const failure = (promise: Promise<unknown>): Promise<UrlRootError> => rejectionOf(promise, UrlRootError);

/** Answers after a pause, so several clients are in flight at once. */
function slowly(body: Buffer, delayMs: number): RouteHandler {
  return (_request, response) => {
    setTimeout(() => response.writeHead(200, { 'content-length': body.length }).end(body), delayMs);
  };
}

describe('URL roots: download, extract, cache', () => {
  it('downloads a zip once, extracts it with its modes, and serves later opens from the cache', async () => {
    server.set('/one/skills.zip', zipBytes);
    const url = server.url('/one/skills.zip');
    const root = await resolveUrlRoot(url, { cacheDir, allowPrivateAddresses: true });
    expect(root).toBe(join(urlRootCacheEntry(url, cacheDir, { allowPrivateAddresses: true }), 'root'));
    expect(await readFile(join(root, 'pack/alpha/docs/guide.md'), 'utf8')).toBe('# Guide\n');
    expect((await stat(join(root, 'pack/alpha/scripts/run.sh'))).mode & 0o777).toBe(0o755);
    expect(JSON.parse(await readFile(join(root, '..', urlRootSentinelName), 'utf8'))).toMatchObject({ url, files: 4 });

    expect(await resolveUrlRoot(url, { cacheDir, allowPrivateAddresses: true })).toBe(root);
    const repository = await FsSkillRepository.open({
      roots: [url],
      urlRoots: { cacheDir, allowPrivateAddresses: true },
    });
    expect(await repository.list()).toEqual([
      { name: 'alpha', description: 'First skill.', path: join(root, 'pack/alpha'), root: url },
      { name: 'beta', description: 'Second skill.', path: join(root, 'pack/beta'), root: url },
    ]);
    expect((await repository.get('alpha')).docs).toEqual(['docs/guide.md']);
    await repository.refresh();
    expect(server.hits('/one/skills.zip')).toBe(1);
    // The sentinel sits beside the root, not in it, so it is nobody's bundled file.
    expect(await cacheListing()).toEqual([root.split('/').at(-2)]);
  });

  it("makes its cache folders the user's alone under a umask that lets the group write", async () => {
    server.set('/umask/skills.zip', zipBytes);
    const home = await mkdtemp(join(tmpdir(), 'skillbox-url-umask-'));
    const previous = process.umask(0o002);
    try {
      await resolveUrlRoot(server.url('/umask/skills.zip'), {
        cacheDir: join(home, 'skillbox', 'skills'),
        allowPrivateAddresses: true,
      });
    } finally {
      process.umask(previous);
    }
    // The host probe and compile caches beside it are used only in a folder no one else may write.
    expect((await stat(join(home, 'skillbox'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(home, 'skillbox', 'skills'))).mode & 0o777).toBe(0o700);
    await rm(home, { recursive: true, force: true });
  });

  it('shares one download among concurrent opens of the same URL', async () => {
    server.set('/shared/skills.zip', slowly(zipBytes, 150));
    const url = server.url('/shared/skills.zip');
    const repositories = await Promise.all(
      [1, 2, 3, 4].map(() =>
        FsSkillRepository.open({ roots: [url], urlRoots: { cacheDir, allowPrivateAddresses: true } }),
      ),
    );
    for (const repository of repositories)
      expect((await repository.list()).map((summary) => summary.name)).toEqual(['alpha', 'beta']);
    expect(server.hits('/shared/skills.zip')).toBe(1);
    expect(await cacheListing()).toHaveLength(1);
  });

  it('ends with one complete entry when two processes fetch the same URL at once', async () => {
    server.set('/race/skills.zip', slowly(zipBytes, 400));
    const url = server.url('/race/skills.zip');
    const module = fileURLToPath(new URL('./url-root.ts', import.meta.url));
    const script = `import { resolveUrlRoot } from ${JSON.stringify(module)}; console.log(await resolveUrlRoot(${JSON.stringify(url)}, { cacheDir: ${JSON.stringify(cacheDir)}, allowPrivateAddresses: true }));`;
    const results = await Promise.all(
      [1, 2].map(() => run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script])),
    );
    const roots = results.map((result) => result.stdout.trim());
    expect(roots[0]).toBe(join(urlRootCacheEntry(url, cacheDir, { allowPrivateAddresses: true }), 'root'));
    expect(roots[1]).toBe(roots[0]);
    expect(await cacheListing()).toEqual([
      urlRootCacheEntry(url, cacheDir, { allowPrivateAddresses: true }).split('/').at(-1),
    ]);
    expect(await readFile(join(roots[0] as string, 'pack/beta/SKILL.md'), 'utf8')).toContain('name: beta');
  });

  it('reads .tar.gz, .tgz and .tar by suffix, and suffix-less zip and tar by their magic bytes', async () => {
    const members = skillFiles.map(({ name, data }) => ({ name, data }));
    server.set('/f/skills.tar.gz', tarGzArchive(members));
    server.set('/f/skills.tgz', tarGzArchive(members));
    server.set('/f/skills.tar', tarArchive(members));
    server.set('/f/download-zip', zipBytes);
    server.set('/f/download-tar', tarArchive(members));
    for (const path of ['/f/skills.tar.gz', '/f/skills.tgz', '/f/skills.tar', '/f/download-zip', '/f/download-tar']) {
      const repository = await FsSkillRepository.open({
        roots: [server.url(path)],
        urlRoots: { cacheDir, allowPrivateAddresses: true },
        strict: true,
      });
      expect(
        (await repository.list()).map((summary) => summary.name),
        path,
      ).toEqual(['alpha', 'beta']);
    }
  });

  it("turns a lone SKILL.md URL into a skill folder named after the URL's folder", async () => {
    server.set('/skills/pdf-tools/SKILL.md', '---\ndescription: Fills PDF forms.\n---\nUse pdftk.\n');
    const repository = await FsSkillRepository.open({
      roots: [server.url('/skills/pdf-tools/SKILL.md')],
      urlRoots: { cacheDir, allowPrivateAddresses: true },
    });
    const [summary] = await repository.list();
    expect(summary?.name).toBe('pdf-tools');
    expect((await repository.get('pdf-tools')).body).toBe('Use pdftk.');
  });

  it('refuses a file of no known format, naming the URL', async () => {
    server.set('/f/notes.txt', 'just text');
    const error = await failure(resolveUrlRoot(server.url('/f/notes.txt'), { cacheDir, allowPrivateAddresses: true }));
    expect(error.message).toBe(
      `skills root ${server.url('/f/notes.txt')}: archive refused: /f/notes.txt is not a .zip, .tar.gz, .tgz, .tar or SKILL.md, and its bytes are none of those formats either`,
    );
    expect(await cacheListing()).toEqual([]);
  });

  it('replaces a leftover entry that has no sentinel', async () => {
    server.set('/left/skills.zip', zipBytes);
    const url = server.url('/left/skills.zip');
    await mkdir(join(urlRootCacheEntry(url, cacheDir, { allowPrivateAddresses: true }), 'root', 'stale'), {
      recursive: true,
    });
    const root = await resolveUrlRoot(url, { cacheDir, allowPrivateAddresses: true });
    expect((await readdir(root)).sort()).toEqual(['pack']);
    expect(server.hits('/left/skills.zip')).toBe(1);
  });

  it('sends user:password from the URL as Basic auth and never shows the password', async () => {
    server.set('/private/skills.zip', (request, response) => {
      if (request.headers.authorization !== `Basic ${Buffer.from('ada:s3cret').toString('base64')}`)
        response.writeHead(401).end();
      else response.writeHead(200).end(zipBytes);
    });
    const url = server.url('/private/skills.zip').replace('://', '://ada:s3cret@');
    const repository = await FsSkillRepository.open({
      roots: [url],
      urlRoots: { cacheDir, allowPrivateAddresses: true },
    });
    expect((await repository.list())[0]?.root).toBe(server.url('/private/skills.zip'));
    const wrong = await failure(
      resolveUrlRoot(url.replace('s3cret', 'guess'), { cacheDir, allowPrivateAddresses: true }),
    );
    expect(wrong.message).toBe(`skills root ${server.url('/private/skills.zip')}: HTTP 401 Unauthorized`);
  });
});

describe('URL roots: hostile archives leave nothing behind', () => {
  const hostile: [string, Buffer, RegExp][] = [
    [
      'a climbing zip entry',
      zipArchive([
        { name: 'ok/SKILL.md', data: 'x' },
        { name: '../escape.md', data: 'x' },
      ]),
      /archive entry "\.\.\/escape\.md" refused: "\.\." is not allowed/,
    ],
    [
      'an absolute tar entry',
      tarArchive([{ name: '/tmp/owned', data: 'x' }]),
      /archive entry "\/tmp\/owned" refused: absolute paths/,
    ],
    [
      'a tar symlink',
      tarArchive([
        { name: 'ok/SKILL.md', data: 'x' },
        { name: 'ok/link', type: '2', linkName: '/etc' },
      ]),
      /"ok\/link" refused: symbolic links/,
    ],
    [
      'a zip bomb',
      zipArchive([{ name: 'bomb.bin', data: Buffer.alloc(3 * 1024 * 1024) }]),
      /"bomb\.bin" refused: .*zip bomb/,
    ],
  ];
  for (const [what, bytes, reason] of hostile) {
    it(`refuses ${what}, names the URL and the entry, and writes nothing`, async () => {
      const path = `/hostile/${what.replaceAll(' ', '-')}.${what.includes('tar') ? 'tar' : 'zip'}`;
      server.set(path, bytes);
      const error = await failure(resolveUrlRoot(server.url(path), { cacheDir, allowPrivateAddresses: true }));
      expect(error.message.startsWith(`skills root ${server.url(path)}: `)).toBe(true);
      expect(error.message).toMatch(reason);
      expect(await cacheListing()).toEqual([]);
    });
  }

  it('skips a refused root with a warning, or fails a strict repository', async () => {
    server.set('/bad/skills.zip', zipArchive([{ name: 'C:/evil.md', data: 'x' }]));
    const url = server.url('/bad/skills.zip');
    const lenient = await FsSkillRepository.open({ roots: [url], urlRoots: { cacheDir, allowPrivateAddresses: true } });
    expect(await lenient.list()).toEqual([]);
    expect((await lenient.report()).warnings).toEqual([
      `skills root ${url}: archive entry "C:/evil.md" refused: the path starts with a drive letter`,
    ]);
    await expect(
      FsSkillRepository.open({ roots: [url], urlRoots: { cacheDir, allowPrivateAddresses: true }, strict: true }),
    ).rejects.toThrow(StrictRepositoryError);
    expect(await cacheListing()).toEqual([]);
  });

  it('refuses archives over the extraction limits it is given', async () => {
    server.set('/limits/skills.zip', zipBytes);
    const error = await failure(
      resolveUrlRoot(server.url('/limits/skills.zip'), {
        cacheDir,
        allowPrivateAddresses: true,
        archiveLimits: { maxEntries: 2 },
      }),
    );
    expect(error.message).toMatch(/holds 4 entries, more than 2 \(maxEntries\)/);
  });
});

describe('URL roots: download limits', () => {
  it('refuses a Content-Length over the limit without reading the body', async () => {
    server.set('/big/skills.zip', zipBytes);
    const error = await failure(
      resolveUrlRoot(server.url('/big/skills.zip'), { cacheDir, allowPrivateAddresses: true, maxDownloadBytes: 100 }),
    );
    expect(error.message).toBe(
      `skills root ${server.url('/big/skills.zip')}: Content-Length ${zipBytes.length} is over the 100-byte limit (maxDownloadBytes)`,
    );
  });

  it('refuses a streamed body that passes the limit when no length was declared', async () => {
    server.set('/stream/skills.zip', (_request, response) => {
      response.writeHead(200, { 'transfer-encoding': 'chunked' });
      const chunk = Buffer.alloc(64 * 1024, 1);
      let sent = 0;
      const pump = (): void => {
        while (sent < 32 && !response.destroyed) {
          sent += 1;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
    });
    const error = await failure(
      resolveUrlRoot(server.url('/stream/skills.zip'), {
        cacheDir,
        allowPrivateAddresses: true,
        maxDownloadBytes: 256 * 1024,
      }),
    );
    expect(error.message).toMatch(/passed the 262144-byte limit \(maxDownloadBytes\) while streaming/);
    expect(await cacheListing()).toEqual([]);
  });

  it('follows redirects up to the limit, and refuses a longer chain or a non-http target', async () => {
    server.set('/final/skills.zip', zipBytes);
    for (let hop = 1; hop <= 3; hop += 1) {
      server.set(`/hop${hop}`, (_request, response) =>
        response.writeHead(302, { location: hop === 3 ? '/final/skills.zip' : `/hop${hop + 1}` }).end(),
      );
    }
    const error = await failure(
      resolveUrlRoot(server.url('/hop1'), { cacheDir, allowPrivateAddresses: true, maxRedirects: 2 }),
    );
    expect(error.message).toBe(`skills root ${server.url('/hop1')}: more than 2 redirects (maxRedirects)`);
    const root = await resolveUrlRoot(server.url('/hop1'), { cacheDir, allowPrivateAddresses: true, maxRedirects: 3 });
    expect(await readdir(root)).toEqual(['pack']);

    server.set('/to-file', (_request, response) => response.writeHead(301, { location: 'file:///etc/passwd' }).end());
    expect(
      (await failure(resolveUrlRoot(server.url('/to-file'), { cacheDir, allowPrivateAddresses: true }))).message,
    ).toMatch(/redirected to file: URL file:\/\/\/etc\/passwd; only http and https/);
  });

  it('gives up after the timeout, on a status error and on a refused connection', async () => {
    server.set('/silent/skills.zip', () => undefined);
    const silent = await failure(
      resolveUrlRoot(server.url('/silent/skills.zip'), { cacheDir, allowPrivateAddresses: true, timeoutMs: 300 }),
    );
    expect(silent.message).toBe(
      `skills root ${server.url('/silent/skills.zip')}: no complete answer within 300 ms (timeoutMs)`,
    );
    const missing = await failure(resolveUrlRoot(server.url('/absent.zip'), { cacheDir, allowPrivateAddresses: true }));
    expect(missing.message).toBe(`skills root ${server.url('/absent.zip')}: HTTP 404 Not Found`);
    const closed = await startLoopbackFileServer();
    const deadUrl = closed.url('/skills.zip');
    await closed.close();
    expect((await failure(resolveUrlRoot(deadUrl, { cacheDir, allowPrivateAddresses: true }))).message).toBe(
      `skills root ${deadUrl}: the download failed: ECONNREFUSED`,
    );
    expect(await cacheListing()).toEqual([]);
  });

  it('checks its options when the repository is built', async () => {
    await expect(resolveUrlRoot('http://127.0.0.1/x.zip', { timeoutMs: 0 })).rejects.toThrow(
      'resolveUrlRoot: option "timeoutMs" must be a positive integer; got 0',
    );
    await expect(FsSkillRepository.open({ roots: ['/x'], urlRoots: { maxRedirects: -1 } })).rejects.toThrow(
      SkillboxConfigError,
    );
    await expect(FsSkillRepository.open({ roots: ['/x'], urlRoots: { maxRedirects: -1 } })).rejects.toThrow(
      'createFsSkillRepository: option "urlRoots.maxRedirects" must be a non-negative integer; got -1',
    );
    await expect(
      FsSkillRepository.open({ roots: ['/x'], urlRoots: { archiveLimits: { maxEntries: 0 } } }),
    ).rejects.toThrow('option "urlRoots.archiveLimits.maxEntries" must be a positive integer; got 0');
  });

  it('reads SKILLS_ROOT URLs and SKILLS_CACHE_DIR from the environment', async () => {
    server.set('/env/skills.tgz', tarGzArchive(skillFiles.map(({ name, data }) => ({ name, data }))));
    const home = await mkdtemp(join(tmpdir(), 'skillbox-url-home-'));
    try {
      const repository = await FsSkillRepository.open({
        cwd: home,
        home,
        env: { SKILLS_ROOT: server.url('/env/skills.tgz'), SKILLS_CACHE_DIR: cacheDir },
        urlRoots: { allowPrivateAddresses: true },
      });
      expect((await repository.list()).map((summary) => summary.name)).toEqual(['alpha', 'beta']);
      expect(await cacheListing()).toHaveLength(1);
      const withDefaultCache = await FsSkillRepository.open({
        cwd: home,
        home,
        env: { SKILLS_ROOT: server.url('/env/skills.tgz') },
        urlRoots: { allowPrivateAddresses: true },
      });
      expect((await withDefaultCache.list())[0]?.path?.startsWith(join(home, '.cache', 'skillbox', 'skills'))).toBe(
        true,
      );
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
