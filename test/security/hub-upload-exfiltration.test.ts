// Someone who can write into a skills folder (a shared checkout, a skill installed from a hostile
// source) wants a file only the uploader can read sent to the provider, under the skill's name.
// `skillbox upload` runs as the uploader: every byte it sends must be the skill folder's own.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSkillBundle } from '../../src/hub/upload/skill-bundle.js';
import { SkillUploadRefusedError } from '../../src/hub/upload/upload-errors.js';
import { uploadSkills } from '../../src/hub/upload/upload-skills.js';
import { type SkillUploadServer, startSkillUploadServer } from '../support/skill-upload-server.js';
import { startFolderFlipper } from './folder-flipper.js';

let root: string;
let server: SkillUploadServer;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillbox-upload-exfiltration-'));
  await mkdir(join(root, 'host', 'private'), { recursive: true });
  await writeFile(join(root, 'host', 'private', 'note.md'), 'HOST SECRET');
  await writeFile(join(root, 'host', 'secret.txt'), 'HOST SECRET');
  await mkdir(join(root, 'skills', 'notes', 'docs'), { recursive: true });
  await writeFile(
    join(root, 'skills', 'notes', 'SKILL.md'),
    '---\nname: notes\ndescription: Notes.\n---\nUse notes.\n',
  );
  await writeFile(join(root, 'skills', 'notes', 'docs', 'note.md'), 'skill doc');
  server = await startSkillUploadServer('anthropic');
});

afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const upload = () =>
  uploadSkills({ provider: 'anthropic', root: join(root, 'skills'), apiKey: 'key', baseUrl: server.baseUrl });

describe('skillbox upload against a skill folder that points at host files', () => {
  it('a link to a host file or folder is refused by name, and nothing reaches the provider', async () => {
    await symlink(join(root, 'host', 'secret.txt'), join(root, 'skills', 'notes', 'secret.md'));
    await expect(upload()).rejects.toThrow(/skill "notes": the scan found link in secret\.md/);
    await rm(join(root, 'skills', 'notes', 'secret.md'));
    await symlink(join(root, 'host', 'private'), join(root, 'skills', 'notes', 'more'));
    await expect(upload()).rejects.toThrow(/skill "notes": the scan found link in more/);
    expect(server.requests).toHaveLength(0);
  });

  it('a folder swapped with a link to a host folder while the bundle is read is never read through', {
    timeout: 120_000,
  }, async () => {
    const skill = join(root, 'skills', 'notes');
    // The scan has passed; now the attacker flips docs/ with a link to the host folder, as fast as it can.
    await symlink(join(root, 'host', 'private'), join(skill, 'docs.other'));
    const flipper = await startFolderFlipper(skill, 'docs', 'docs.other');
    const outcomes = { clean: 0, refused: 0 };
    try {
      for (let attempt = 0; attempt < 400; attempt += 1) {
        let text: string;
        try {
          const bundle = await readSkillBundle('notes', skill);
          text = bundle.files.map((file) => Buffer.from(file.bytes).toString('latin1')).join('\n');
        } catch (error) {
          expect(error).toBeInstanceOf(SkillUploadRefusedError);
          outcomes.refused += 1;
          continue;
        }
        expect(text).not.toContain('HOST SECRET');
        outcomes.clean += 1;
      }
    } finally {
      flipper.kill('SIGKILL');
    }
    // The flip was met (the window the attack needs), not dodged.
    expect(outcomes.refused).toBeGreaterThan(0);
    console.log(`bundle reads under a folder flip: ${outcomes.clean} clean, ${outcomes.refused} refused`);
  });
});
