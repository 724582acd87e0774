// `skillbox inspect` serves sessions (anything a user typed or a script printed) and skills over
// HTTP. The attacks, each as a request the inspector must turn away before it reads anything:
// a page elsewhere reading through the visitor's browser (cross-origin, cross-site), a site whose
// name was re-pointed at 127.0.0.1 (DNS rebinding: its own Host header), a write of any kind, a
// client off loopback without the printed token (or with a wrong one of the same length), and a
// path that climbs out of the assets.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningInspector, startInspector } from '../../src/inspector/inspector-server.js';
import { FsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { createMemorySessionStore } from '../../src/sessions/memory-session-store.js';

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
