import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const nodeMajor = Number(process.versions.node.split('.')[0]);

/** The internal modules of Node a fresh process has loaded once `module` is imported. */
function loadedBy(module: string): string[] {
  const script = `await import(${JSON.stringify(fileURLToPath(new URL(module, import.meta.url)))}); console.log(JSON.stringify(process.moduleLoadList))`;
  return JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }),
  ) as string[];
}

describe('what importing skillbox loads of Node (node-http.ts)', () => {
  it('`skillbox run` loads no HTTP module before it speaks HTTP', () => {
    const http = loadedBy('./cli/commands/run.ts').filter((name) => /^NativeModule (http|_http_\w+)$/.test(name));
    expect(http).toEqual([]);
  });

  // On Node 20 an ES import of node:http has no getters that load undici: nothing to catch there,
  // and the Node 22 CI cell (the whole suite) runs this.
  it.runIf(nodeMajor >= 22)('the root entry and `skillbox run` load no undici, an HTTP client they never use', () => {
    for (const module of ['./index.ts', './cli/commands/run.ts']) {
      const undici = loadedBy(module).filter((name) => name.includes('undici'));
      expect({ module, undici }).toEqual({ module, undici: [] });
    }
  });
});
