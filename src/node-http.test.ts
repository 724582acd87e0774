import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const nodeMajor = Number(process.versions.node.split('.')[0]);
const loaded = (module: string): string[] => {
  const script = `await import(${JSON.stringify(fileURLToPath(new URL(module, import.meta.url)))}); console.log(JSON.stringify(process.moduleLoadList))`;
  return JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }),
  ) as string[];
};

// On Node 22 and later an ES import of node:http loads Node's undici (node-http.ts); Node 20 has
// no such getters, so there the test has nothing to catch and the Node 22 and 24 CI cells run it.
describe.runIf(nodeMajor >= 22)('what importing skillbox loads of Node', () => {
  it('the root entry and `skillbox run` load no HTTP client they do not use (undici)', () => {
    for (const module of ['./index.ts', './cli/commands/run.ts']) {
      const undici = loaded(module).filter((name) => name.includes('undici'));
      expect({ module, undici }).toEqual({ module, undici: [] });
    }
  });
});
if (nodeMajor < 22) it.skip(`loads no undici: needs Node 22 or later to mean anything, this is ${process.version}`);
