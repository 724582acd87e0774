import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSkillsShSourceHarness, serveSkillsShSearch } from '../../../test/support/skills-sh-source-harness.js';
import { describeSkillSourceConformance } from '../testing/source-conformance.js';

describeSkillSourceConformance('skills.sh', openSkillsShSourceHarness);

describe('skills.sh source', () => {
  let harness: Awaited<ReturnType<typeof openSkillsShSourceHarness>>;
  beforeAll(async () => {
    harness = await openSkillsShSourceHarness();
  });
  afterAll(() => harness.close());

  it('searches with the skills.sh API and returns references it can install', async () => {
    serveSkillsShSearch(harness.search, [
      { id: 'conformance/skills/alpha', name: 'alpha', installs: 1234, source: 'conformance/skills' },
      { id: 'conformance/skills/beta', name: 'beta', installs: 7, source: 'conformance/skills' },
      { id: 'not a valid id', name: 'broken', installs: 1, source: 'x' },
    ]);
    const hits = (await harness.source.search?.('alpha', { limit: 5 })) ?? [];
    expect(hits).toEqual([
      {
        name: 'alpha',
        description: 'Indexed by skills.sh from conformance/skills · 1234 installs',
        source: 'skills.sh/conformance/skills/alpha',
        installs: 1234,
      },
    ]);
    const hit = hits[0] as { source: string };
    const skills = await harness.source.fetch(await harness.source.resolve(hit.source));
    expect(skills.map((skill) => skill.name)).toEqual(['alpha']);
  });

  it('names a skill page whose skill the repository does not have', async () => {
    const resolved = await harness.source.resolve('skills.sh/conformance/skills/gamma');
    await expect(harness.source.fetch(resolved)).rejects.toThrow(
      /skills-sh source "skills.sh\/conformance\/skills\/gamma": no skill named "gamma"/,
    );
  });
});
