import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const polyfill = fileURLToPath(new URL('./promise-with-resolvers.ts', import.meta.url));
const node22 = process.env.SKILLBOX_NODE22 ?? '/tmp/skillbox-matrix/node22/node_modules/.bin/node';

/** Runs `body` in a fresh Node process with the polyfill module imported as `installPromiseWithResolvers`. */
function inNode(node: string, body: string): unknown {
  const script = `import { installPromiseWithResolvers } from ${JSON.stringify(polyfill)};\n${body}`;
  const out = execFileSync(node, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out);
}

const check = `
const added = installPromiseWithResolvers();
const a = Promise.withResolvers(); a.resolve(7);
const b = Promise.withResolvers(); b.reject(new Error('no'));
const results = [await a.promise, await b.promise.catch((e) => e.message), added, installPromiseWithResolvers()];
process.stdout.write(JSON.stringify(results));
`;

describe('installPromiseWithResolvers (the Restate SDK needs Promise.withResolvers; Node 20 lacks it)', () => {
  it('adds a working Promise.withResolvers where it is missing, once', () => {
    expect(inNode(process.execPath, `delete Promise.withResolvers;\n${check}`)).toEqual([7, 'no', true, false]);
  });

  it.runIf(Number(process.versions.node.split('.')[0]) < 22)(
    'is needed on this Node (20): it lacks withResolvers',
    () => {
      expect(inNode(process.execPath, 'process.stdout.write(JSON.stringify(typeof Promise.withResolvers))')).toBe(
        'undefined',
      );
    },
  );

  it.runIf(existsSync(node22))("leaves Node 22's own withResolvers in place", () => {
    expect(inNode(node22, check)).toEqual([7, 'no', false, false]);
  });
});
