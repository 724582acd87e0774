import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FetchedFile } from '../../src/hub/skill-source.js';
import { writeTree } from '../../src/hub/testing/conformance-skill-tree.js';

/** Answers a request itself (hang, cut short, redirect); return false to let the registry answer. */
export type RegistryInterceptor = (request: IncomingMessage, response: ServerResponse) => boolean;

export interface NpmRegistryServer {
  readonly registryUrl: string;
  /**
   * Packs the tree with the real `npm pack` (package.json written from `manifest`) and publishes the
   * tarball as `name@version` under `tag` (`latest` by default); returns the tarball.
   */
  publish(
    manifest: { name: string; version: string; [field: string]: unknown },
    tree: readonly FetchedFile[],
    tag?: string,
  ): Promise<Buffer>;
  /** Publishes a ready tarball (hostile ones included); `integrity` defaults to the tarball's real sha512. */
  publishTarball(name: string, version: string, tarball: Buffer, integrity?: string, tag?: string): void;
  intercept(interceptor: RegistryInterceptor): () => void;
  close(): Promise<void>;
}

interface PublishedVersion {
  tarball: Buffer;
  integrity: string;
  shasum: string;
}

/**
 * The read side of the npm registry protocol on loopback: packuments at `/NAME` (scoped names as
 * `@scope%2fname`) with `dist-tags` and per-version `dist.tarball` / `dist.integrity` / `dist.shasum`,
 * and tarballs at `/NAME/-/FILE.tgz`, the URLs registry.npmjs.org uses. Tarballs come from real
 * `npm pack`. (verdaccio from npm would also do; this server is used because the hostile cases need
 * to serve tarballs and answers no real registry would publish.)
 */
export async function startNpmRegistryServer(): Promise<NpmRegistryServer> {
  const packages = new Map<string, { tags: Map<string, string>; versions: Map<string, PublishedVersion> }>();
  const interceptors = new Set<RegistryInterceptor>();
  let registryUrl = '';

  function entryFor(name: string) {
    let entry = packages.get(name);
    if (entry === undefined) {
      entry = { tags: new Map(), versions: new Map() };
      packages.set(name, entry);
    }
    return entry;
  }

  function tarballFile(name: string, version: string): string {
    return `${name.split('/').at(-1)}-${version}.tgz`;
  }

  function json(response: ServerResponse, status: number, body: unknown): void {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  }

  const server = createServer((request, response) => {
    for (const interceptor of interceptors) if (interceptor(request, response)) return;
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname.slice(1));
    const tarball = /^(.+)\/-\/([^/]+\.tgz)$/.exec(path);
    if (tarball !== null) {
      const [, name, file] = tarball as unknown as [string, string, string];
      const published = [...(packages.get(name)?.versions ?? new Map<string, PublishedVersion>())].find(
        ([version]) => tarballFile(name, version) === file,
      );
      if (published === undefined) return json(response, 404, { error: 'not found' });
      response.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': String(published[1].tarball.length),
      });
      response.end(published[1].tarball);
      return;
    }
    const entry = packages.get(path);
    if (entry === undefined) return json(response, 404, { error: 'not found' });
    json(response, 200, {
      name: path,
      'dist-tags': Object.fromEntries(entry.tags),
      versions: Object.fromEntries(
        [...entry.versions].map(([version, published]) => [
          version,
          {
            name: path,
            version,
            dist: {
              tarball: `${registryUrl}/${path}/-/${tarballFile(path, version)}`,
              integrity: published.integrity,
              shasum: published.shasum,
            },
          },
        ]),
      ),
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  registryUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function publishTarball(name: string, version: string, tarball: Buffer, integrity?: string, tag = 'latest'): void {
    const entry = entryFor(name);
    entry.versions.set(version, {
      tarball,
      integrity: integrity ?? `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
      shasum: createHash('sha1').update(tarball).digest('hex'),
    });
    entry.tags.set(tag, version);
  }

  return {
    registryUrl,
    async publish(manifest, tree, tag = 'latest') {
      const work = mkdtempSync(join(tmpdir(), 'skillbox-npm-pack-'));
      try {
        const folder = join(work, 'package');
        await writeTree(folder, tree);
        writeFileSync(join(folder, 'package.json'), JSON.stringify(manifest, null, 2));
        const output = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
          cwd: folder,
          encoding: 'utf8',
          env: { ...process.env, npm_config_loglevel: 'silent', npm_config_update_notifier: 'false' },
        });
        const [packed] = JSON.parse(output) as [{ filename: string }];
        const tarball = readFileSync(join(work, packed.filename));
        publishTarball(manifest.name, manifest.version, tarball, undefined, tag);
        return tarball;
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
    publishTarball,
    intercept(interceptor) {
      interceptors.add(interceptor);
      return () => interceptors.delete(interceptor);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
