// Attack: a skills URL, or a redirect from an attacker's server, points at the machine skillbox runs
// on or its network (a database port, an admin page, the cloud metadata service), so the download
// fetches from there on the attacker's behalf (SSRF). Without urlRoots.allowPrivateAddresses only
// public addresses are reached, judged as each connection is made.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SkillboxConfigError } from '../../src/config/config-error.js';
import { zipArchive } from '../../src/repository/archive/testing/archive-writers.js';
import {
  type LoopbackFileServer,
  startLoopbackFileServer,
} from '../../src/repository/archive/testing/loopback-file-server.js';
import { rejectionOf } from '../../src/repository/archive/testing/rejection-of.js';
import { resolveUrlRoot } from '../../src/repository/url-root.js';
import { nonPublicAddressKind } from '../../src/repository/url-root-address-policy.js';
import { DownloadFailure, downloadWithLimits } from '../../src/repository/url-root-download.js';
import { UrlRootError } from '../../src/repository/url-root-errors.js';

const skillsZip = zipArchive([
  { name: 'pack/alpha/SKILL.md', data: '---\nname: alpha\ndescription: Alpha.\n---\nBody\n' },
]);
let server: LoopbackFileServer;
let cacheDir: string;

beforeAll(async () => {
  server = await startLoopbackFileServer({ '/skills.zip': skillsZip });
  cacheDir = join(await mkdtemp(join(tmpdir(), 'skillbox-ssrf-')), 'cache');
});
afterAll(async () => {
  await server.close();
  await rm(join(cacheDir, '..'), { recursive: true, force: true });
});

const refusal = (promise: Promise<unknown>): Promise<UrlRootError> => rejectionOf(promise, UrlRootError);

describe('URL roots refuse non-public addresses by default', () => {
  it('refuses a loopback URL, naming the URL and the address, without connecting', async () => {
    const url = server.url('/skills.zip');
    const error = await refusal(resolveUrlRoot(url, { cacheDir }));
    expect(error.url).toBe(url);
    expect(error.message).toBe(
      `skills root ${url}: 127.0.0.1 is a loopback address; URL roots are fetched only from public addresses unless urlRoots.allowPrivateAddresses is set`,
    );
    expect(server.hits('/skills.zip')).toBe(0);
    expect(await readdir(cacheDir).catch(() => [])).toEqual([]);
  });

  it('refuses a host name that resolves to loopback, judged by the address the socket would connect to', async () => {
    const url = `http://localhost:${new URL(server.origin).port}/skills.zip`;
    const error = await refusal(resolveUrlRoot(url, { cacheDir }));
    expect(error.message).toMatch(
      /^skills root http:\/\/localhost:\d+\/skills\.zip: localhost resolves to (127\.0\.0\.1|::1), a loopback address; URL roots are fetched only from public addresses/,
    );
    expect(server.hits('/skills.zip')).toBe(0);
  });

  it('refuses IPv6 loopback, IPv4-mapped IPv6 and the other non-public literals', async () => {
    for (const [host, kind] of [
      ['[::1]', 'a loopback'],
      ['[::ffff:127.0.0.1]', 'an IPv4-mapped loopback'],
      ['169.254.169.254', 'a link-local'],
      ['10.0.0.1', 'a private'],
      ['100.64.0.1', 'a carrier-grade NAT (shared)'],
      ['[fd12::1]', 'a unique-local (private)'],
      ['0.0.0.0', 'an unspecified ("this network")'],
    ] as const) {
      const error = await refusal(resolveUrlRoot(`http://${host}:9/skills.zip`, { cacheDir, timeoutMs: 2000 }));
      expect(error.message, host).toContain(`${kind} address; URL roots are fetched only from public addresses`);
    }
  });

  it('refuses a redirect to a non-public address, naming the redirect target', async () => {
    // 127.0.0.1 stands in for a public server (the rule treats only it as public); the redirect goes
    // to 127.0.0.2, which also reaches this machine, as an attacker's redirect to loopback would.
    const target = `http://127.0.0.2:${new URL(server.origin).port}/skills.zip`;
    server.set('/moved.zip', (_request, response) => void response.writeHead(302, { location: target }).end());
    const error = await rejectionOf(
      downloadWithLimits(server.url('/moved.zip'), {
        maxBytes: 1 << 20,
        timeoutMs: 5000,
        maxRedirects: 5,
        allowPrivateAddresses: false,
        addressRule: (address) => (address === '127.0.0.1' ? undefined : nonPublicAddressKind(address)),
      }),
      DownloadFailure,
    );
    expect(error.message).toBe(
      `redirected to ${target}, but 127.0.0.2 is a loopback address; URL roots are fetched only from public addresses unless urlRoots.allowPrivateAddresses is set`,
    );
    expect(server.hits('/moved.zip')).toBe(1);
    expect(server.hits('/skills.zip')).toBe(0);
  });

  it('fetches loopback when the caller allows private addresses, and checks the option', async () => {
    const root = await resolveUrlRoot(server.url('/skills.zip'), { cacheDir, allowPrivateAddresses: true });
    expect(await readdir(join(root, 'pack'))).toEqual(['alpha']);
    await expect(
      resolveUrlRoot(server.url('/skills.zip'), { cacheDir, allowPrivateAddresses: 'yes' as unknown as boolean }),
    ).rejects.toThrow(SkillboxConfigError);
  });
});

// The cache is shared: one agent's root may allow private addresses or larger archives, another's
// not. An entry stored under the looser policy must not be served to the stricter root.
describe('URL roots: a cache entry stored under a looser policy', () => {
  it('is not served to a root that does not allow private addresses', async () => {
    const shared = join(cacheDir, '..', 'shared-private');
    const url = server.url('/skills.zip');
    const loose = await resolveUrlRoot(url, { cacheDir: shared, allowPrivateAddresses: true });
    expect(await readdir(join(loose, 'pack'))).toEqual(['alpha']);
    const hits = server.hits('/skills.zip');
    const error = await refusal(resolveUrlRoot(url, { cacheDir: shared }));
    expect(error.message).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(server.hits('/skills.zip')).toBe(hits);
    // The looser root still finds its own entry.
    expect(await resolveUrlRoot(url, { cacheDir: shared, allowPrivateAddresses: true })).toBe(loose);
  });

  it('is not served to a root with stricter archive limits', async () => {
    const shared = join(cacheDir, '..', 'shared-limits');
    const many = zipArchive(
      Array.from({ length: 30 }, (_, index) => ({
        name: `pack/s${index}/SKILL.md`,
        data: `---\nname: s${index}\ndescription: S.\n---\nBody\n`,
      })),
    );
    server.set('/many.zip', many);
    const url = server.url('/many.zip');
    await resolveUrlRoot(url, { cacheDir: shared, allowPrivateAddresses: true });
    const error = await refusal(
      resolveUrlRoot(url, { cacheDir: shared, allowPrivateAddresses: true, archiveLimits: { maxEntries: 10 } }),
    );
    expect(error.message).toMatch(/holds 30 entries, more than 10 \(maxEntries\)/);
  });
});
