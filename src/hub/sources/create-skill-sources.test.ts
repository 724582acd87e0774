import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitHubShapedServer, startGitHubShapedServer } from '../../../test/support/github-shaped-server.js';
import { conformanceSkillTree } from '../testing/conformance-skill-tree.js';
import { createSkillSources } from './create-skill-sources.js';

describe('createSkillSources', () => {
  let server: GitHubShapedServer;
  beforeAll(async () => {
    server = await startGitHubShapedServer();
  });
  afterAll(() => server.close());

  it('gives each kind of reference to the right source, the first that matches', () => {
    const sources = createSkillSources({ environment: {} });
    const typeOf = (reference: string) => sources.find((source) => source.matches(reference))?.type;
    expect(
      Object.fromEntries(
        [
          'npm:@acme/skills@^1',
          'marketplace:anthropics/skills',
          'clawhub:pdf-tools@1.0.0',
          'skills.sh/vercel-labs/agent-skills/web-design',
          'https://gitlab.com/acme/skills.git#v1:skills',
          'git@github.com:acme/skills.git',
          'https://docs.example.com',
          'acme/skills/path@v1',
          './local/folder',
        ].map((reference) => [reference, typeOf(reference)]),
      ),
    ).toEqual({
      'npm:@acme/skills@^1': 'npm',
      'marketplace:anthropics/skills': 'marketplace',
      'clawhub:pdf-tools@1.0.0': 'clawhub',
      'skills.sh/vercel-labs/agent-skills/web-design': 'skills-sh',
      'https://gitlab.com/acme/skills.git#v1:skills': 'git',
      'git@github.com:acme/skills.git': 'git',
      'https://docs.example.com': 'well-known',
      'acme/skills/path@v1': 'github',
      './local/folder': undefined,
    });
  });

  it('reads GITHUB_TOKEN from the environment when no token is given', async () => {
    server.publish('acme/token', conformanceSkillTree());
    const sources = createSkillSources({
      github: { apiBaseUrl: server.apiBaseUrl, archiveOrigins: [server.archiveOrigin] },
      environment: { GITHUB_TOKEN: 'ghp_from_environment' },
    });
    const github = sources.find((source) => source.type === 'github');
    const before = server.requests.length;
    await github?.resolve('acme/token');
    expect(server.requests.slice(before).map((request) => request.authorization)).toContain(
      'Bearer ghp_from_environment',
    );
  });
});
