import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SkillUploadServer, startSkillUploadServer } from '../../../test/support/skill-upload-server.js';
import { skillDigest } from '../../repository/skill-digest.js';
import { addSkills } from '../install/installer.js';
import { createSourceRegistry } from '../source-registry.js';
import { createLocalSkillSource } from '../sources/local-source.js';
import { skillFile, writeTestFiles } from '../testing/skill-folder.js';
import { SkillUploadFailedError, SkillUploadRefusedError } from './upload-errors.js';
import { type UploadSkillsOptions, uploadSkills } from './upload-skills.js';

const apiKey = 'sk-test-SECRET-KEY-0123456789';
let project: string;
let server: SkillUploadServer | undefined;

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'skillbox-upload-'));
  await writeTestFiles(join(project, 'skills'), [
    { path: 'alpha/SKILL.md', text: skillFile('alpha') },
    { path: 'alpha/scripts/run.py', text: 'print("alpha")\n' },
    { path: 'beta/SKILL.md', text: skillFile('beta') },
  ]);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(project, { recursive: true, force: true });
});

async function upload(provider: 'anthropic' | 'openai', extra: Partial<UploadSkillsOptions> = {}) {
  server ??= await startSkillUploadServer(provider);
  return uploadSkills({ provider, root: join(project, 'skills'), apiKey, baseUrl: server.baseUrl, ...extra });
}

const recordFile = () => join(project, '.skillbox', 'uploads.json');

describe('uploadSkills', () => {
  it('anthropic: creates each skill with the documented request, records it, then sends nothing while nothing changed', async () => {
    const first = await upload('anthropic');
    expect(first.recordFile).toBe(recordFile());
    expect(first.skills.map((skill) => [skill.name, skill.status, skill.providerReference])).toEqual([
      ['alpha', 'created', { anthropic: 'skill_1' }],
      ['beta', 'created', { anthropic: 'skill_2' }],
    ]);
    const requests = server!.requests;
    expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /v1/skills',
      'POST /v1/skills',
    ]);
    const alpha = requests[0]!;
    expect(alpha.headers['x-api-key']).toBe(apiKey);
    expect(alpha.headers['anthropic-beta']).toBe('skills-2025-10-02');
    expect(alpha.headers['anthropic-version']).toBe('2023-06-01');
    expect(alpha.headers.authorization).toBeUndefined();
    expect(String(alpha.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    expect(alpha.fields).toEqual({ display_title: 'alpha' });
    expect(alpha.partNames).toEqual(['display_title', 'files[]', 'files[]']);
    expect(alpha.files).toEqual([
      { name: 'alpha/SKILL.md', content: skillFile('alpha') },
      { name: 'alpha/scripts/run.py', content: 'print("alpha")\n' },
    ]);

    const record = JSON.parse(await readFile(recordFile(), 'utf8'));
    expect(record.skills.alpha.anthropic).toMatchObject({
      id: 'skill_1',
      version: first.skills[0]!.version,
      digest: skillDigest([
        { path: 'SKILL.md', bytes: Buffer.from(skillFile('alpha')) },
        { path: 'scripts/run.py', bytes: Buffer.from('print("alpha")\n') },
      ]),
      endpoint: server!.baseUrl,
    });
    expect(JSON.stringify(record)).not.toContain(apiKey);

    const again = await upload('anthropic');
    expect(again.skills.map((skill) => skill.status)).toEqual(['unchanged', 'unchanged']);
    expect(again.skills[0]).toMatchObject({ skillId: 'skill_1', version: first.skills[0]!.version });
    expect(server!.requests).toHaveLength(2);
  });

  it('anthropic: a changed skill goes up as a new version of the same skill; the other is not sent', async () => {
    const first = await upload('anthropic');
    await writeFile(join(project, 'skills', 'alpha', 'SKILL.md'), `${skillFile('alpha')}\nMore.\n`);
    const second = await upload('anthropic');
    expect(second.skills.map((skill) => [skill.name, skill.status])).toEqual([
      ['alpha', 'new-version'],
      ['beta', 'unchanged'],
    ]);
    expect(server!.requests.slice(2).map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /v1/skills/skill_1/versions',
    ]);
    expect(server!.requests[2]!.files.map((file) => file.name)).toEqual(['alpha/SKILL.md', 'alpha/scripts/run.py']);
    expect(second.skills[0]!.version).not.toBe(first.skills[0]!.version);
    const record = JSON.parse(await readFile(recordFile(), 'utf8'));
    expect(record.skills.alpha.anthropic.version).toBe(second.skills[0]!.version);
  });

  it('openai: bearer auth, no beta header, files[] parts; a new version is made the default', async () => {
    await upload('openai', { skills: ['alpha'] });
    const create = server!.requests[0]!;
    expect(create.path).toBe('/v1/skills');
    expect(create.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(create.headers['anthropic-beta']).toBeUndefined();
    expect(create.headers['x-api-key']).toBeUndefined();
    expect(create.partNames).toEqual(['files[]', 'files[]']);
    await writeFile(join(project, 'skills', 'alpha', 'scripts', 'run.py'), 'print("changed")\n');
    const second = await upload('openai', { skills: ['alpha'] });
    expect(second.skills[0]).toMatchObject({ status: 'new-version', providerReference: { openai: 'skill_1' } });
    expect(server!.requests[1]).toMatchObject({ path: '/v1/skills/skill_1/versions', fields: { default: 'true' } });
  });

  it('refuses a skill the scan refuses, naming the skill and the finding, and sends nothing', async () => {
    await writeFile(join(project, 'skills', 'beta', 'notes.md'), 'Safe text \u202e gnp.exe\n');
    await expect(upload('anthropic')).rejects.toThrow(SkillUploadRefusedError);
    await expect(upload('anthropic')).rejects.toThrow(/skill "beta": the scan found bidi-unicode in notes\.md/);
    expect(server!.requests).toHaveLength(0);
    await expect(readFile(recordFile(), 'utf8')).rejects.toThrow(/ENOENT/);

    await rm(join(project, 'skills', 'beta', 'notes.md'));
    await symlink('/etc/passwd', join(project, 'skills', 'alpha', 'passwd'));
    await expect(upload('anthropic')).rejects.toThrow(/skill "alpha": the scan found link in passwd/);
    await rm(join(project, 'skills', 'alpha', 'passwd'));
    await expect(upload('anthropic', { denyScripts: true })).rejects.toThrow(
      /skill "alpha": the scan found script in scripts\/run\.py/,
    );
    expect(server!.requests).toHaveLength(0);
  });

  it('surfaces a provider error with its status and message, never the API key', async () => {
    server = await startSkillUploadServer('anthropic');
    server.failNext(401, `invalid x-api-key: ${apiKey}`);
    const error = await upload('anthropic').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SkillUploadFailedError);
    expect((error as SkillUploadFailedError).status).toBe(401);
    expect((error as Error).message).toBe(
      'uploading skill "alpha": anthropic answered HTTP 401: invalid x-api-key: [api key]',
    );
    expect(JSON.stringify(error)).not.toContain(apiKey);
    // Nothing was uploaded, so nothing is recorded.
    await expect(readFile(recordFile(), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('with a lock: uploads the locked skills as installed, and refuses one that differs from the lock', async () => {
    const registry = createSourceRegistry([createLocalSkillSource({ cwd: project })]);
    await addSkills('./skills', {}, { registry, cwd: project });
    server = await startSkillUploadServer('anthropic');
    const lock = join(project, 'skills-lock.json');
    const result = await uploadSkills({ provider: 'anthropic', lock, apiKey, baseUrl: server.baseUrl });
    expect(result.recordFile).toBe(join(project, '.skillbox', 'uploads.json'));
    expect(result.skills.map((skill) => skill.name)).toEqual(['alpha', 'beta']);
    expect(server.requests[0]!.files.map((file) => file.name)).toEqual(['alpha/SKILL.md', 'alpha/scripts/run.py']);

    await writeFile(
      join(project, '.agents', 'skills', 'beta', 'SKILL.md'),
      `${skillFile('beta')}\nEdited after install.\n`,
    );
    await expect(uploadSkills({ provider: 'anthropic', lock, apiKey, baseUrl: server.baseUrl })).rejects.toThrow(
      /nothing was uploaded: skill "beta" differs from .*skills-lock\.json: /,
    );
    expect(server.requests).toHaveLength(2);
  });

  it('names a bad option', async () => {
    await expect(uploadSkills({ provider: 'gemini' as never, root: project, apiKey })).rejects.toThrow(/provider/);
    await expect(uploadSkills({ provider: 'openai', apiKey })).rejects.toThrow(/give either root/);
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    await expect(uploadSkills({ provider: 'openai', root: project })).rejects.toThrow(/OPENAI_API_KEY/);
    if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
  });
});
