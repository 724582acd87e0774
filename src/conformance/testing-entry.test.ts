import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../sessions/memory-session-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import { describeRuntimeConformance, describeSessionStoreConformance } from './index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the skillbox/testing entry', () => {
  it('is a package export whose build output is this folder, with vitest an optional peer', () => {
    const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
      exports: Record<string, { types: string; default: string }>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    expect(manifest.exports['./testing']).toEqual({
      types: './dist/conformance/index.d.ts',
      default: './dist/conformance/index.js',
    });
    const source = manifest.exports['./testing']!.default.replace('./dist/', 'src/').replace(/\.js$/, '.ts');
    expect(existsSync(`${root}${source}`)).toBe(true);
    expect(manifest.peerDependencies.vitest).toBeDefined();
    expect(manifest.peerDependenciesMeta.vitest?.optional).toBe(true);
    expect(typeof describeRuntimeConformance).toBe('function');
  });
});

// A third party's store as its author would check it: a store of their own (here one that wraps the
// memory store), run through the suite imported from the public entry.
function thirdPartyStore(): SessionStore {
  const inner = createMemorySessionStore();
  return {
    createSession: (key, options) => inner.createSession(key, options),
    getSession: (key, options) => inner.getSession(key, options),
    listSessions: (userId, options) => inner.listSessions(userId, options),
    appendEvents: (key, events, options) => inner.appendEvents(key, events, options),
    deleteSession: (key) => inner.deleteSession(key),
    close: () => inner.close(),
  };
}

describeSessionStoreConformance(
  'third-party (through skillbox/testing)',
  async () => {
    const store = thirdPartyStore();
    return { open: async () => store, destroy: async () => {} };
  },
  { durable: false },
);
