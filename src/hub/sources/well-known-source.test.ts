import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveWellKnownV1, serveWellKnownV2, skillTarGz } from '../../../test/support/well-known-site.js';
import { openWellKnownV1Harness, openWellKnownV2Harness } from '../../../test/support/well-known-source-harness.js';
import {
  type LoopbackFileServer,
  startLoopbackFileServer,
} from '../../repository/archive/testing/loopback-file-server.js';
import { conformanceSkillFiles } from '../testing/conformance-skill-tree.js';
import { describeSkillSourceConformance } from '../testing/source-conformance.js';
import { createWellKnownSource } from './well-known-source.js';

describeSkillSourceConformance('well-known v0.1', openWellKnownV1Harness);
describeSkillSourceConformance('well-known v0.2', openWellKnownV2Harness);

const skillMarkdown = (name: string) =>
  Buffer.from(`---\nname: ${name}\ndescription: The ${name} skill.\n---\n\nBody.\n`);

describe('well-known source', () => {
  let server: LoopbackFileServer;
  beforeAll(async () => {
    server = await startLoopbackFileServer();
  });
  afterAll(() => server.close());
  const source = createWellKnownSource();

  it('matches http(s) URLs except GitHub and git URLs', () => {
    expect(source.matches('https://example.com')).toBe(true);
    expect(source.matches('https://example.com/docs/.well-known/agent-skills/index.json')).toBe(true);
    expect(source.matches('https://github.com/o/r')).toBe(false);
    expect(source.matches('https://example.com/r.git')).toBe(false);
    expect(source.matches('owner/repo')).toBe(false);
  });

  it('prefers v0.2 over v0.1 and accepts a direct index URL', async () => {
    serveWellKnownV1(server, '/both', [
      { name: 'old', files: [{ path: 'SKILL.md', bytes: skillMarkdown('old'), executable: false }] },
    ]);
    serveWellKnownV2(server, '/both', [
      {
        name: 'new',
        type: 'skill-md',
        bytes: skillMarkdown('new'),
        file: 'new/SKILL.md',
        contentType: 'text/markdown',
      },
    ]);
    const resolved = await source.resolve(server.url('/both'));
    expect(resolved.sourceUrl).toBe(server.url('/both/.well-known/agent-skills/index.json'));
    expect((await source.fetch(resolved)).map((skill) => skill.name)).toEqual(['new']);
    const direct = await source.resolve(server.url('/both/.well-known/skills/index.json'));
    expect((await source.fetch(direct)).map((skill) => skill.name)).toEqual(['old']);
  });

  it('refuses an artifact whose digest is not the one the index gives', async () => {
    serveWellKnownV2(server, '/lying', [
      {
        name: 'alpha',
        type: 'archive',
        bytes: skillTarGz(conformanceSkillFiles('alpha')),
        file: 'alpha.tar.gz',
        contentType: 'application/gzip',
        digest: `sha256:${createHash('sha256').update('other bytes').digest('hex')}`,
      },
    ]);
    await expect(source.fetch(await source.resolve(server.url('/lying')))).rejects.toThrow(
      /well-known source .*"alpha": the artifact's digest is sha256:[0-9a-f]{64}, but the index says/,
    );
  });

  it('refuses an index whose entry name is not the name in SKILL.md', async () => {
    serveWellKnownV2(server, '/renamed', [
      {
        name: 'trusted',
        type: 'skill-md',
        bytes: skillMarkdown('other'),
        file: 'x/SKILL.md',
        contentType: 'text/markdown',
      },
    ]);
    await expect(source.fetch(await source.resolve(server.url('/renamed')))).rejects.toThrow(
      /names a skill "trusted" whose SKILL.md says its name is "other"/,
    );
  });

  it('refuses an index that changed after it was resolved', async () => {
    const files = [{ path: 'SKILL.md', bytes: skillMarkdown('first'), executable: false }];
    serveWellKnownV1(server, '/changing', [{ name: 'first', files }]);
    const resolved = await source.resolve(server.url('/changing'));
    serveWellKnownV1(server, '/changing', [{ name: 'first', files, description: 'Now different.' }]);
    await expect(source.fetch(resolved)).rejects.toThrow(/the index changed since it was resolved/);
  });

  it('refuses an artifact on another host than the index', async () => {
    server.set('/elsewhere/.well-known/agent-skills/index.json', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          $schema: 'https://schemas.agentskills.io/discovery/0.2.0/schema.json',
          skills: [
            {
              name: 'alpha',
              type: 'skill-md',
              description: 'x',
              url: 'http://127.0.0.1:1/SKILL.md',
              digest: `sha256:${'0'.repeat(64)}`,
            },
          ],
        }),
      );
    });
    await expect(source.fetch(await source.resolve(server.url('/elsewhere')))).rejects.toThrow(/on another host/);
  });
});
