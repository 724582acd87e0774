import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { satisfies } from 'semver';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const manifest = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const installed = (name: string): string =>
  (JSON.parse(readFileSync(resolve(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;

// ai and the OpenAI-compatible provider are dependencies (the CLI's `chat` needs them after installing
// only skillbox), so their ranges must take every major the matrix tests: npm then reuses the app's
// copy instead of installing a second one whose types and errors differ from the app's.
describe('dependency and peer ranges', () => {
  it('take ai 6 and ai 7, and the ai this project is tested with', () => {
    for (const version of ['6.0.0', '6.0.326', '7.0.0', '7.0.173', installed('ai')])
      expect(satisfies(version, manifest.dependencies.ai!), `ai ${version}`).toBe(true);
    expect(satisfies('8.0.0', manifest.dependencies.ai!)).toBe(false);
  });

  it('take the @ai-sdk/openai-compatible majors that go with ai 6 (2) and ai 7 (3)', () => {
    for (const version of ['2.0.92', '3.0.92', installed('@ai-sdk/openai-compatible')])
      expect(satisfies(version, manifest.dependencies['@ai-sdk/openai-compatible']!), version).toBe(true);
  });

  it('take the @opentelemetry/api an application with the current trace SDK has', () => {
    for (const version of ['1.3.0', '1.9.1', '1.10.0', installed('@opentelemetry/api')])
      expect(satisfies(version, manifest.peerDependencies['@opentelemetry/api']!), version).toBe(true);
  });

  it('say Node 20.19 in engines, the oldest Node the matrix tests (with ai 6)', () => {
    expect(satisfies('20.19.0', manifest.engines.node)).toBe(true);
    expect(satisfies('20.18.0', manifest.engines.node)).toBe(false);
  });
});
