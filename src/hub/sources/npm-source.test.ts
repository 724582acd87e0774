import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NpmRegistryServer, startNpmRegistryServer } from '../../../test/support/npm-registry-server.js';
import { openNpmSourceHarness } from '../../../test/support/npm-source-harness.js';
import { conformanceSkillTree } from '../testing/conformance-skill-tree.js';
import { describeSkillSourceConformance } from '../testing/source-conformance.js';
import { createNpmSource } from './npm-source.js';

describeSkillSourceConformance('npm', openNpmSourceHarness);

// Each test packs with the real `npm pack`, which takes seconds on a loaded machine.
describe('npm source', { timeout: 30_000 }, () => {
  let server: NpmRegistryServer;
  beforeAll(async () => {
    server = await startNpmRegistryServer();
  });
  afterAll(() => server.close());
  const source = () => createNpmSource({ registryUrl: server.registryUrl });

  it('matches npm: references only', () => {
    for (const reference of ['npm:pkg', 'npm:pkg@^1.2.0', 'npm:@scope/pkg@next'])
      expect(source().matches(reference), reference).toBe(true);
    for (const reference of ['pkg', 'npm:', 'npm:Upper', 'npm:../x', 'owner/repo'])
      expect(source().matches(reference), reference).toBe(false);
  });

  it('resolves dist-tags, exact versions and ranges with the registry protocol', async () => {
    // One real pack serves every version: resolution reads only the packument.
    const tarball = await server.publish({ name: 'ranged', version: '1.0.0' }, conformanceSkillTree());
    server.publishTarball('ranged', '1.4.2', tarball);
    server.publishTarball('ranged', '2.0.0-beta.1', tarball, undefined, 'next');
    expect((await source().resolve('npm:ranged')).pinned).toBe('1.4.2');
    expect((await source().resolve('npm:ranged@~1.0')).pinned).toBe('1.0.0');
    expect((await source().resolve('npm:ranged@next')).pinned).toBe('2.0.0-beta.1');
    expect((await source().resolve('npm:ranged', { ref: '1.0.0' })).pinned).toBe('1.0.0');
    await expect(source().resolve('npm:ranged@^3')).rejects.toThrow(
      /npm source "npm:ranged@\^3": .*no version matching "\^3"/,
    );
  });

  it('finds skills anywhere in a package without a skills field, and only the listed folders with one', async () => {
    await server.publish({ name: 'undeclared', version: '1.0.0' }, conformanceSkillTree());
    const all = await source().fetch(await source().resolve('npm:undeclared'));
    expect(all.map((skill) => [skill.name, skill.skillPath])).toEqual([
      ['alpha', 'skills/alpha'],
      ['beta', 'skills/beta'],
    ]);
    await server.publish({ name: 'declared', version: '1.0.0', skills: './skills/beta' }, conformanceSkillTree());
    const declared = await source().fetch(await source().resolve('npm:declared'));
    expect(declared.map((skill) => skill.name)).toEqual(['beta']);
  });

  it('refuses a tarball that does not match dist.integrity', async () => {
    const tarball = await server.publish({ name: 'tampered', version: '1.0.0' }, conformanceSkillTree());
    const lie = `sha512-${createHash('sha512').update('something else').digest('base64')}`;
    server.publishTarball('tampered', '1.0.1', tarball, lie);
    await expect(source().fetch(await source().resolve('npm:tampered'))).rejects.toThrow(
      /does not match dist.integrity/,
    );
  });

  it('refuses a package.json skills entry that leaves the package', async () => {
    await server.publish({ name: 'escaping', version: '1.0.0', skills: ['../../etc'] }, conformanceSkillTree());
    await expect(source().fetch(await source().resolve('npm:escaping'))).rejects.toThrow(/leaves the package/);
  });
});
