import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openClawHubSourceHarness } from '../../../test/support/clawhub-source-harness.js';
import { skillZip } from '../../../test/support/well-known-site.js';
import { conformanceSkillFiles, conformanceSkillTree } from '../testing/conformance-skill-tree.js';
import { describeSkillSourceConformance } from '../testing/source-conformance.js';

describeSkillSourceConformance('clawhub', openClawHubSourceHarness);

describe('clawhub source', () => {
  let harness: Awaited<ReturnType<typeof openClawHubSourceHarness>>;
  beforeAll(async () => {
    harness = await openClawHubSourceHarness();
  });
  afterAll(() => harness.close());

  it('pins the latest version, or the one asked for, and names a missing version', async () => {
    harness.server.publish('versioned', '1.0.0', { zip: skillZip(conformanceSkillFiles('alpha')) });
    harness.server.publish('versioned', '1.1.0', { zip: skillZip(conformanceSkillFiles('beta')) });
    expect((await harness.source.resolve('clawhub:versioned')).pinned).toBe('1.1.0');
    const old = await harness.source.resolve('clawhub:versioned@1.0.0');
    expect(old).toMatchObject({ pinned: '1.0.0', ref: '1.0.0' });
    expect((await harness.source.fetch(old)).map((skill) => [skill.name, skill.skillPath])).toEqual([['alpha', '']]);
    await expect(harness.source.resolve('clawhub:versioned@9.9.9')).rejects.toThrow(
      /clawhub source "clawhub:versioned@9.9.9": ClawHub has no version "9.9.9" of "versioned"/,
    );
  });

  it('follows a GitHub handoff to the commit and folder it names', async () => {
    const commit = harness.github.publish('someone/skills', conformanceSkillTree());
    harness.server.publish('from-github', '2.0.0', { github: { repo: 'someone/skills', commit, path: 'skills/beta' } });
    const skills = await harness.source.fetch(await harness.source.resolve('clawhub:from-github'));
    expect(skills.map((skill) => [skill.name, skill.skillPath])).toEqual([['beta', 'skills/beta']]);
  });

  it('searches ClawHub and returns references it can install', async () => {
    harness.server.publish('pdf-tools', '1.0.0', { zip: skillZip(conformanceSkillFiles('alpha')) }, 'Work with PDFs.');
    const hits = (await harness.source.search?.('pdf')) ?? [];
    expect(hits).toEqual([{ name: 'pdf-tools', description: 'Work with PDFs.', source: 'clawhub:pdf-tools' }]);
  });
});
