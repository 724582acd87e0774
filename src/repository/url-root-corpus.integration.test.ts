import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusRoot, hasCorpus } from '../../test/support/corpus.js';
import { type LoopbackFileServer, startLoopbackFileServer } from './archive/testing/loopback-file-server.js';
import { FsSkillRepository } from './fs-skill-repository.js';

const run = promisify(execFile);
const corpus = corpusRoot;
const corpusName = basename(corpus);

let dir: string;
let server: LoopbackFileServer;

describe.runIf(hasCorpus)('URL roots on the corpus', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbox-url-corpus-'));
    await Promise.all([
      run('tar', ['-czf', join(dir, 'corpus.tar.gz'), '-C', dirname(corpus), corpusName]),
      run('zip', ['-qr', join(dir, 'corpus.zip'), corpusName], { cwd: dirname(corpus) }),
    ]);
    server = await startLoopbackFileServer({
      '/corpus.tar.gz': await readFile(join(dir, 'corpus.tar.gz')),
      '/corpus.zip': await readFile(join(dir, 'corpus.zip')),
    });
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves every corpus skill from a .tar.gz and a .zip exactly as the folder does', async () => {
    const direct = await FsSkillRepository.open({ roots: [corpus] });
    const expected = (await direct.list()).map(
      (summary) => `${summary.name} ${relative(corpus, summary.path as string)} ${summary.description}`,
    );
    const expectedReport = await direct.report();
    expect(expected.length).toBeGreaterThan(600);
    for (const path of ['/corpus.tar.gz', '/corpus.zip']) {
      const repository = await FsSkillRepository.open({
        roots: [server.url(path)],
        urlRoots: { cacheDir: join(dir, 'cache'), allowPrivateAddresses: true },
      });
      const cachedCorpus = join(repository.roots()[0] as string, corpusName);
      const listed = (await repository.list()).map(
        (summary) => `${summary.name} ${relative(cachedCorpus, summary.path as string)} ${summary.description}`,
      );
      expect(listed, path).toEqual(expected);
      const report = await repository.report();
      expect(
        report.skipped.map((skipped) => relative(cachedCorpus, skipped.path)),
        path,
      ).toEqual(expectedReport.skipped.map((skipped) => relative(corpus, skipped.path)));
      expect(report.shadowed.length, path).toBe(expectedReport.shadowed.length);
    }
  });
});
