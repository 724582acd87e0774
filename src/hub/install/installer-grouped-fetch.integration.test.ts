// update and install fetch each source once, however many of its skills are locked: counted as
// requests to real `git http-backend` on loopback.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GitHttpServer, startGitHttpServer } from '../../../test/support/git-http-server.js';
import type { FetchedFile } from '../skill-source.js';
import { createSourceRegistry } from '../source-registry.js';
import { createGitSource } from '../sources/git-source.js';
import { addSkills, type InstallerOptions, installFromLock, updateSkills } from './installer.js';

let server: GitHttpServer;
let project: string;
let options: InstallerOptions;
let requests: string[];
let stopCounting: () => void;

function tree(version: string): FetchedFile[] {
  return ['alpha', 'beta', 'gamma', 'delta'].map((name) => ({
    path: `skills/${name}/SKILL.md`,
    bytes: Buffer.from(`---\nname: ${name}\ndescription: Skill ${name}, ${version}.\n---\nBody.\n`),
    executable: false,
  }));
}

beforeAll(async () => {
  server = await startGitHttpServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'skillbox-grouped-'));
  options = {
    registry: createSourceRegistry([createGitSource({ allowInsecureTransports: true })]),
    cwd: project,
  };
  requests = [];
  stopCounting = server.intercept((request) => {
    requests.push(`${request.method} ${request.url}`);
    return false;
  });
});
afterEach(async () => {
  stopCounting();
  await rm(project, { recursive: true, force: true });
});

describe('fetching locked skills', () => {
  it('update fetches a source once for all four of its skills, as add did', async () => {
    await server.publish('grouped', tree('one'));
    await addSkills(server.url('grouped'), {}, options);
    const perFetch = requests.length;
    expect(perFetch).toBeGreaterThan(0);
    await server.publish('grouped', tree('two'));
    requests = [];
    const updated = await updateSkills(undefined, options);
    expect(updated.map((skill) => skill.name)).toEqual(['alpha', 'beta', 'delta', 'gamma']);
    expect(requests.length).toBe(perFetch);
    expect(await readFile(join(project, '.agents/skills/gamma/SKILL.md'), 'utf8')).toContain('two');
    requests = [];
    await rm(join(project, '.agents'), { recursive: true });
    await installFromLock({ ...options, frozen: true });
    // The locked commit needs no ref lookup: one fetch, that is one ref advertisement and one pack.
    expect(requests).toEqual([
      'GET /grouped.git/info/refs?service=git-upload-pack',
      'POST /grouped.git/git-upload-pack',
    ]);
  }, 60_000);

  it('two refs of one source are two fetches', async () => {
    await server.publish('refs', tree('main'));
    await server.publish('refs', tree('stable'), { branch: 'stable' });
    await addSkills(server.url('refs'), { skills: ['alpha', 'beta'] }, options);
    const perFetch = requests.length;
    await addSkills(`${server.url('refs')}#stable`, { skills: ['gamma'] }, options);
    requests = [];
    await updateSkills(undefined, options);
    expect(requests.length).toBe(2 * perFetch);
  }, 60_000);
});
