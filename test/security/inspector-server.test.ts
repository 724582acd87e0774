// `skillbox inspect` serves sessions (anything a user typed or a script printed) and skills over
// HTTP. The attacks, each as a request the inspector must turn away before it reads anything:
// a page elsewhere reading through the visitor's browser (cross-origin, cross-site), a site whose
// name was re-pointed at 127.0.0.1 (DNS rebinding: its own Host header), a write of any kind, a
// client off loopback without the printed token (or with a wrong one of the same length), and a
// path that climbs out of the assets; then a run's output files (below).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningInspector, startInspector } from '../../src/inspector/inspector-server.js';
import { FsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { LocalRuntime } from '../../src/runtime/local-runtime.js';
import { createMemorySessionStore } from '../../src/sessions/memory-session-store.js';
import { createFilesystemArtifactStore } from '../../src/workspace/outputs/filesystem-artifact-store.js';
import { workspaceKeyId } from '../../src/workspace/workspace-key.js';
import { createWorkspaceManager } from '../../src/workspace/workspace-manager.js';

const folder = mkdtempSync(join(tmpdir(), 'skillbox-inspector-attack-'));
const assets = join(folder, 'assets');
let loopback: RunningInspector;
let elsewhere: RunningInspector;
const store = createMemorySessionStore();

beforeAll(async () => {
  mkdirSync(join(folder, 'skills', 'secret-notes'), { recursive: true });
  writeFileSync(
    join(folder, 'skills', 'secret-notes', 'SKILL.md'),
    '---\nname: secret-notes\ndescription: Notes.\n---\nbody\n',
  );
  mkdirSync(assets);
  writeFileSync(join(assets, 'app.js'), 'console.log(1)');
  writeFileSync(join(assets, 'app.css'), 'body{}');
  const repository = await FsSkillRepository.open({ roots: [join(folder, 'skills')] });
  await store.createSession({ userId: 'ada', sessionId: 'private' });
  loopback = await startInspector({ repository, store, userId: 'ada', assetsDir: assets });
  // Another loopback address stands for "not the usual loopback name": it gets a token.
  elsewhere = await startInspector({ repository, store, userId: 'ada', assetsDir: assets, host: '127.0.0.2' });
});
afterAll(async () => {
  await loopback?.close();
  await elsewhere?.close();
  rmSync(folder, { recursive: true, force: true });
});

function ask(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const sent = request(
      url,
      { method: options.method ?? 'GET', headers: { host: url.host, ...options.headers } },
      (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
      },
    );
    sent.on('error', reject);
    sent.end();
  });
}

describe('inspector: requests turned away before anything is read', () => {
  it('serves its own pages and data on loopback, with headers that forbid framing and foreign scripts', async () => {
    const answer = await ask(loopback.url, '/api/sessions');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).sessions.map((session: { sessionId: string }) => session.sessionId)).toEqual([
      'private',
    ]);
    expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(answer.headers['content-security-policy']).toContain("script-src 'self'");
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });

  it('refuses a Host header that names another site (DNS rebinding)', async () => {
    const port = new URL(loopback.url).port;
    const answer = await ask(loopback.url, '/api/sessions', { headers: { host: `attacker.example:${port}` } });
    expect(answer.status).toBe(421);
    expect(answer.body).not.toContain('private');
    expect((await ask(loopback.url, '/api/sessions', { headers: { host: 'localhost:1' } })).status).toBe(421);
  });

  it('refuses a request from a page on another origin or another site', async () => {
    const crossOrigin = await ask(loopback.url, '/api/sessions', { headers: { origin: 'https://attacker.example' } });
    expect(crossOrigin.status).toBe(403);
    expect(crossOrigin.body).not.toContain('private');
    const crossSite = await ask(loopback.url, '/api/skills', { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body).not.toContain('secret-notes');
    // Its own origin passes.
    expect((await ask(loopback.url, '/api/skills', { headers: { origin: new URL(loopback.url).origin } })).status).toBe(
      200,
    );
  });

  it('refuses every write method', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      expect((await ask(loopback.url, '/api/sessions/private', { method })).status).toBe(405);
    }
    expect(await store.getSession({ userId: 'ada', sessionId: 'private' })).toBeDefined();
  });

  it('off the usual loopback names, refuses a request without the printed token, or with a wrong one', async () => {
    expect(elsewhere.url).toMatch(/\?token=[A-Za-z0-9_-]{32}$/);
    const token = new URL(elsewhere.url).searchParams.get('token') as string;
    const without = await ask(elsewhere.url, '/api/sessions');
    expect(without.status).toBe(401);
    expect(without.body).not.toContain('private');
    const wrong = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect((await ask(elsewhere.url, `/api/sessions?token=${wrong}`)).status).toBe(401);
    expect((await ask(elsewhere.url, '/api/sessions', { headers: { authorization: `Bearer ${wrong}` } })).status).toBe(
      401,
    );
    expect((await ask(elsewhere.url, `/api/sessions?token=${token}`)).status).toBe(200);
    expect((await ask(elsewhere.url, '/api/sessions', { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
  });

  it('takes the user and app a request names only as names, and only past the same guard', async () => {
    // The page may ask for another user's or app's sessions (the store cannot list them; they are typed in):
    // that is no way around the token, and a name holding control characters or 10 kB is no name.
    expect((await ask(elsewhere.url, '/api/sessions?user=ada&app=default')).status).toBe(401);
    expect((await ask(elsewhere.url, '/api/sessions/private?user=ada')).status).toBe(401);
    const control = await ask(loopback.url, '/api/sessions?user=ada%0d%0aX-Injected:%201');
    expect(control.status).toBe(400);
    expect(control.body).toContain('user must be a name');
    expect(control.headers['x-injected']).toBeUndefined();
    const long = await ask(loopback.url, `/api/sessions/private?app=${'a'.repeat(10_000)}`);
    expect(long.status).toBe(400);
    expect(long.body).toContain('app must be a name');
    expect((await ask(loopback.url, '/api/sessions?user=%20')).status).toBe(400);
    // Named rightly, the same session is read.
    expect((await ask(loopback.url, '/api/sessions/private?user=ada&app=default')).status).toBe(200);
    expect((await ask(loopback.url, '/api/sessions/private?user=eve')).status).toBe(404);
  });

  it('serves nothing outside its two assets: a climbing path is a 404', async () => {
    for (const path of [
      '/assets/../../../../etc/passwd',
      '/assets/%2e%2e/%2e%2e/etc/passwd',
      '/assets/app.js/..',
      '/etc/passwd',
    ]) {
      const answer = await ask(loopback.url, path);
      expect(answer.status).toBe(404);
      expect(answer.body).not.toContain('root:');
    }
  });
});

// Output files: the inspector serves a run's output file from the session's workspace. Everything in
// a workspace is the sandboxed command's to write: it can plant links and name files anything. The
// person asking can name any run and any file. Only a file a stored run result names is served,
// opened inside the workspace, never as a page.
describe('inspector: output files of runs, served only as the runs name them', () => {
  const workspacesDir = join(folder, 'workspaces');
  const outputs = createMemorySessionStore();
  let served: RunningInspector;
  let workspaceRoot: string;
  const key = { userId: 'ada', sessionId: 'made-files' };

  /** A 2x2 red PNG, written by hand: signature, IHDR, one IDAT, IEND. */
  function tinyPng(): Buffer {
    const chunk = (type: string, data: Buffer) => {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(data.length);
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type), data])));
      return Buffer.concat([length, Buffer.from(type), data, crc]);
    };
    const header = Buffer.alloc(13);
    header.writeUInt32BE(2, 0);
    header.writeUInt32BE(2, 4);
    header.set([8, 2, 0, 0, 0], 8);
    const rows = Buffer.from([0, 255, 0, 0, 255, 0, 0, 0, 255, 0, 0, 255, 0, 0]);
    return Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', header),
      chunk('IDAT', deflateSync(rows)),
      chunk('IEND', Buffer.alloc(0)),
    ]);
  }

  beforeAll(async () => {
    const repository = await FsSkillRepository.open({ roots: [join(folder, 'skills')] });
    const workspaces = createWorkspaceManager({ runtime: new LocalRuntime(), repository, baseDir: workspacesDir });
    // The workspace the agent's runs of this session use (the agent keys it without an app).
    workspaceRoot = (await workspaces.workspace(key)).root;
    const out = join(workspaceRoot, 'out');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'plot.png'), tinyPng());
    writeFileSync(join(out, 'secret.txt'), 'not named by any run');
    writeFileSync(join(out, 'drawing.svg'), '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    writeFileSync(join(out, 'page.png'), '<html><script>alert(1)</script></html>');
    writeFileSync(join(out, 'junk.png'), Buffer.from([0, 1, 2, 3, 0xfe, 0xff, 0, 0x80]));
    writeFileSync(join(out, 'big.png'), Buffer.concat([tinyPng(), Buffer.alloc(4096)]));
    symlinkSync('/etc/passwd', join(out, 'passwd.png'));
    symlinkSync('/etc', join(out, 'up'));
    await workspaces.close({ keepWorkspaces: true });
    // Artifacts the runs saved, where the workspace manager keeps them; one saved by no run named here.
    const saved = createFilesystemArtifactStore({ dir: join(workspacesDir, 'artifacts') });
    const scope = workspaceKeyId(key);
    await saved.save({ scope, name: 'out/plot.png' }, tinyPng(), 'image/png');
    await saved.save({ scope, name: 'out/plot.png' }, Buffer.from('version two'), 'image/png');
    await saved.save(
      { scope, name: 'out/drawing.svg' },
      Buffer.from('<svg><script>alert(1)</script></svg>'),
      'image/png',
    );
    await saved.save({ scope, name: 'out/big.png' }, Buffer.concat([tinyPng(), Buffer.alloc(4096)]), 'image/png');
    await saved.save({ scope, name: 'out/secret.txt' }, Buffer.from('saved by no run named here'), 'text/plain');
    const names = [
      ['out/plot.png', tinyPng().length],
      ['out/drawing.svg', undefined],
      ['out/page.png', undefined],
      ['out/junk.png', undefined],
      ['out/big.png', undefined],
      ['out/passwd.png', undefined],
      ['out/up/passwd', undefined],
      ['../../../../etc/passwd', undefined],
      [`${workspaceRoot}/../../etc/passwd`, undefined],
    ] as const;
    await outputs.createSession(key);
    await outputs.appendEvents(
      key,
      [
        {
          author: 'assistant',
          type: 'message',
          content: {
            role: 'assistant',
            content: [
              { type: 'tool-call', toolCallId: 'run-1', toolName: 'workspace_exec', input: { command: 'make' } },
            ],
          },
        },
        {
          author: 'tool',
          type: 'message',
          content: {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'run-1',
                toolName: 'workspace_exec',
                output: {
                  type: 'json',
                  value: {
                    exit_code: 0,
                    stdout: '',
                    stderr: '',
                    artifact_files: [
                      { name: 'out/plot.png', version: 1 },
                      { name: 'out/drawing.svg', version: 1 },
                      { name: 'out/big.png', version: 1 },
                      { name: '..', version: 1 },
                    ].map((artifact) => ({ ...artifact, ref: `artifact://${artifact.name}@${artifact.version}` })),
                    output_files: names.map(([name, size]) => ({
                      name,
                      mime_type: 'image/png',
                      ...(size === undefined ? {} : { size_bytes: size }),
                    })),
                  },
                },
              },
            ],
          },
        },
      ],
      { expectedVersion: 0 },
    );
    served = await startInspector({
      repository,
      store: outputs,
      userId: 'ada',
      assetsDir: assets,
      workspacesDir,
      maxOutputFileBytes: 1024,
    });
  });
  afterAll(async () => {
    await served?.close();
  });

  const file = (name: string, run = 2, session = 'made-files') =>
    `/api/sessions/${session}/outputs?run=${run}&file=${encodeURIComponent(name)}`;

  async function fetchBytes(path: string): Promise<{ status: number; headers: Headers; body: Buffer }> {
    const response = await fetch(new URL(path, served.url));
    return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
  }

  it('serves an image a run names, inline, typed by its bytes, never sniffed, sandboxed', async () => {
    const answer = await fetchBytes(file('out/plot.png'));
    expect(answer.status).toBe(200);
    expect(answer.body.equals(tinyPng())).toBe(true);
    expect(answer.headers.get('content-type')).toBe('image/png');
    expect(answer.headers.get('content-disposition')).toMatch(/^inline; filename="plot.png"/);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
  });

  it('refuses a forged name: climbing, absolute, or one no run result names', async () => {
    for (const name of [
      '../../../../etc/passwd',
      `${workspaceRoot}/../../etc/passwd`,
      'out/../../../../etc/passwd',
      '/etc/passwd',
      'out/secret.txt',
      'out//plot.png',
      './out/plot.png',
    ]) {
      const answer = await fetchBytes(file(name));
      expect([400, 404], name).toContain(answer.status);
      expect(answer.body.toString()).not.toContain('root:');
      expect(answer.body.toString()).not.toContain('not named by any run');
    }
    // The file is named, but by another event than the one asked about; or the session is another.
    expect((await fetchBytes(file('out/plot.png', 1))).status).toBe(404);
    expect((await fetchBytes(file('out/plot.png', 2, 'private'))).status).toBe(404);
    expect((await fetchBytes('/api/sessions/made-files/outputs?run=x&file=out/plot.png')).status).toBe(400);
  });

  it('refuses a link the command planted in the workspace, in the file or in a folder on its way', async () => {
    for (const name of ['out/passwd.png', 'out/up/passwd']) {
      const answer = await fetchBytes(file(name));
      expect(answer.status, name).toBe(403);
      expect(answer.body.toString()).not.toContain('root:');
      expect(answer.body.toString()).not.toContain(workspaceRoot);
    }
  });

  it('never serves SVG or markup as a page: a download of untyped bytes, whatever the name or the stored type', async () => {
    for (const name of ['out/drawing.svg', 'out/page.png', 'out/junk.png']) {
      const answer = await fetchBytes(file(name));
      expect(answer.status, name).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/octet-stream');
      expect(answer.headers.get('content-disposition')).toMatch(/^attachment; /);
      expect(answer.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    }
  });

  it('refuses a file over the size cap', async () => {
    const answer = await fetchBytes(file('out/big.png'));
    expect(answer.status).toBe(413);
    expect(answer.body.toString()).toContain('at most 1024');
  });

  const artifact = (name: string, version: number, run = 2) =>
    `/api/sessions/made-files/artifacts?run=${run}&name=${encodeURIComponent(name)}&version=${version}`;

  it('serves an artifact only as a run names it (name and version), typed by its bytes, never as a page', async () => {
    const image = await fetchBytes(artifact('out/plot.png', 1));
    expect(image.status).toBe(200);
    expect(image.body.equals(tinyPng())).toBe(true);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('content-disposition')).toMatch(/^inline; /);
    // Saved, but not by a run named here: version 2 of the same name, another name, another event.
    for (const path of [
      artifact('out/plot.png', 2),
      artifact('out/secret.txt', 1),
      artifact('out/plot.png', 1, 1),
      artifact('../made-files/out/plot.png', 1),
    ]) {
      const answer = await fetchBytes(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.toString()).not.toContain('version two');
      expect(answer.body.toString()).not.toContain('saved by no run');
    }
    // A name the store could never have saved, though a (forged) result names it.
    expect((await fetchBytes(artifact('..', 1))).status).toBe(400);
    const svg = await fetchBytes(artifact('out/drawing.svg', 1));
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toBe('application/octet-stream');
    expect(svg.headers.get('content-disposition')).toMatch(/^attachment; /);
    expect(svg.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    const big = await fetchBytes(artifact('out/big.png', 1));
    expect(big.status).toBe(413);
    expect((await fetchBytes('/api/sessions/made-files/artifacts?run=2&name=out/plot.png&version=x')).status).toBe(400);
  });

  it('serves no output file when not given the workspaces folder, and asks the same guard first', async () => {
    expect((await ask(loopback.url, '/api/sessions/made-files/outputs?run=2&file=out/plot.png')).status).toBe(404);
    expect(
      (await ask(loopback.url, '/api/sessions/made-files/artifacts?run=2&name=out/plot.png&version=1')).status,
    ).toBe(404);
    const foreign = await fetchBytes(file('out/plot.png'));
    expect(foreign.status).toBe(200);
    const refused = await new Promise<number>((resolve, reject) => {
      const url = new URL(file('out/plot.png'), served.url);
      request(url, { headers: { host: 'evil.example:80' } }, (response) => resolve(response.statusCode ?? 0))
        .on('error', reject)
        .end();
    });
    expect(refused).toBe(421);
  });
});
