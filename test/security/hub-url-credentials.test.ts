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
import { type GitHttpServer, startGitHttpServer } from '../support/git-http-server.js';

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
