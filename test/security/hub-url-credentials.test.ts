// A git URL with a password in it (https://user:secret@host/repo.git): the install uses it, but
// the secret never reaches skills-lock.json, a progress line, the scan review, an error message,
// or the CLI's standard output and error.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { addSkills, type InstallProgress, updateSkills } from '../../src/hub/install/installer.js';
import { formatScanReports } from '../../src/hub/scan/format-scan-report.js';
import { createSourceRegistry } from '../../src/hub/source-registry.js';
import { createGitSource } from '../../src/hub/sources/git-source.js';
import { createNpmSource } from '../../src/hub/sources/npm-source.js';
import { createWellKnownSource } from '../../src/hub/sources/well-known-source.js';
import { conformanceSkillFiles } from '../../src/hub/testing/conformance-skill-tree.js';
import { startLoopbackFileServer } from '../../src/repository/archive/testing/loopback-file-server.js';
import { type GitHttpServer, startGitHttpServer } from '../support/git-http-server.js';
import { serveWellKnownV1 } from '../support/well-known-site.js';

const secret = 's3cret-Pa55word';
let server: GitHttpServer;
let project: string;

beforeAll(async () => {
  server = await startGitHttpServer();
  await server.publish('private', [
    {
      path: 'skills/notes/SKILL.md',
      bytes: Buffer.from('---\nname: notes\ndescription: Notes.\n---\nBody.\n'),
      executable: false,
    },
    { path: 'skills/notes/run.sh', bytes: Buffer.from('#!/bin/sh\necho hi\n'), executable: true },
  ]);
  project = await mkdtemp(join(tmpdir(), 'skillbox-credentials-'));
});
afterAll(async () => {
  await server.close();
  await rm(project, { recursive: true, force: true });
});

/** The repository's URL with a user and password in it. */
function withPassword(url: string): string {
  return url.replace('http://', `http://user:${secret}@`);
}

describe('credentials in a source URL', () => {
  it('installs, updates and fails without the secret in the lock, progress, review or errors', async () => {
    const seen: string[] = [];
    const options = {
      registry: createSourceRegistry([createGitSource({ allowInsecureTransports: true })]),
      cwd: project,
      onProgress: (progress: InstallProgress) => seen.push(progress.message),
      review: (reports: Parameters<typeof formatScanReports>[0]) => {
        seen.push(formatScanReports(reports));
        return true;
      },
    };
    const reference = withPassword(server.url('private'));
    const [installed] = await addSkills(reference, {}, options);
    expect(installed?.name).toBe('notes');
    const lock = await readFile(join(project, 'skills-lock.json'), 'utf8');
    expect(lock).toContain(`"source": "${server.url('private')}"`);
    expect(lock).not.toContain(secret);
    expect(lock).not.toContain('user:');
    await updateSkills(undefined, options);
    expect(await readFile(join(project, 'skills-lock.json'), 'utf8')).not.toContain(secret);
    const failures = await Promise.all(
      [withPassword(server.url('missing')), `${reference}#no-such-branch`].map((missing) =>
        addSkills(missing, {}, options).then(
          () => 'installed',
          (error: Error) => `${error.message}\n${String((error as { cause?: unknown }).cause ?? '')}`,
        ),
      ),
    );
    expect(failures.every((message) => message !== 'installed')).toBe(true);
    expect(seen.length).toBeGreaterThan(3);
    expect([...seen, ...failures].filter((text) => text.includes(secret))).toEqual([]);
  }, 60_000);

  it('the CLI never prints it, on success or failure', async () => {
    let output = '';
    const code = await main(['add', `https://user:${secret}@127.0.0.1:1/private.git`, '--yes'], {
      stdout: (text) => void (output += text),
      stderr: (text) => void (output += text),
      cwd: project,
      env: { HOME: project, SKILLBOX_SOURCES: 'git' },
    });
    expect(code).toBe(1);
    expect(output).toContain('127.0.0.1:1/private.git');
    expect(output).not.toContain(secret);
  }, 60_000);
});

/** The message of what `attempt` threw, with every cause's message under it. */
async function failureText(attempt: () => Promise<unknown>): Promise<string> {
  const error = await attempt().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, 'it should have failed').toBeInstanceOf(Error);
  let text = '';
  for (let current: unknown = error; current instanceof Error; current = current.cause) text += `${current.message}\n`;
  return text;
}

describe('credentials in the URLs of other sources', () => {
  it('the well-known and npm sources never put a password in an error, a message or its causes', async () => {
    const site = await startLoopbackFileServer();
    try {
      const origin = site.origin.replace('http://', `http://user:${secret}@`);
      const wellKnown = { registry: createSourceRegistry([createWellKnownSource()]), cwd: project };
      const npm = {
        registry: createSourceRegistry([createNpmSource({ registryUrl: `${origin}/registry` })]),
        cwd: project,
      };
      const texts = [
        await failureText(() => addSkills(`${origin}/nothing-here`, {}, wellKnown)),
        await failureText(() => addSkills(`http://user:${secret}@127.0.0.1:1/site`, {}, wellKnown)),
        await failureText(() => addSkills('npm:no-such-package', {}, npm)),
        await failureText(() =>
          addSkills(
            'npm:x',
            {},
            {
              ...npm,
              registry: createSourceRegistry([createNpmSource({ registryUrl: `http://user:${secret}@127.0.0.1:1` })]),
            },
          ),
        ),
      ];
      for (const text of texts) {
        expect(text).toMatch(/127\.0\.0\.1/);
        expect(text).not.toContain(secret);
      }
    } finally {
      await site.close();
    }
  });

  it('a token in the query string is used for nothing it need not be, and never written to the lock', async () => {
    const site = await startLoopbackFileServer();
    try {
      serveWellKnownV1(site, '/site', [{ name: 'alpha', files: conformanceSkillFiles('alpha') }]);
      const seen: string[] = [];
      const options = {
        registry: createSourceRegistry([createWellKnownSource()]),
        cwd: project,
        onProgress: (progress: InstallProgress) => seen.push(progress.message),
      };
      const [installed] = await addSkills(`${site.origin}/site?access_token=${secret}&lang=en`, {}, options);
      expect(installed?.name).toBe('alpha');
      const lock = await readFile(join(project, 'skills-lock.json'), 'utf8');
      expect(lock).toContain(`${site.origin}/site?lang=en`);
      expect(lock).not.toContain(secret);
      expect(lock).not.toContain('access_token');
      expect(seen.filter((line) => line.includes(secret))).toEqual([]);
      const failed = await failureText(() => addSkills(`${site.origin}/nothing?private_token=${secret}`, {}, options));
      expect(failed).not.toContain(secret);
    } finally {
      await site.close();
    }
  });

  it('a git password holding a raw @ is hidden whole', async () => {
    const password = `pa@ss-${secret}`;
    let output = '';
    const code = await main(['add', `https://user:${password}@127.0.0.1:1/private.git`, '--yes'], {
      stdout: (text) => void (output += text),
      stderr: (text) => void (output += text),
      cwd: project,
      env: { HOME: project, SKILLBOX_SOURCES: 'git' },
    });
    expect(code).toBe(1);
    expect(output).toContain('127.0.0.1:1/private.git');
    expect(output).not.toContain(secret);
    expect(output).not.toContain('ss-');
  }, 60_000);
});
