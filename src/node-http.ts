import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * `node:http`, reached through `require` when first used. An ES import of it makes Node build the
 * module's ES facade, which reads every export; on Node 22 and later three of them (`WebSocket`,
 * `CloseEvent`, `MessageEvent`) are getters that load Node's bundled undici with some seventy
 * internal modules, ~40 ms, in every process that imports `skillbox` or runs `skillbox run`,
 * whether or not it ever speaks HTTP. Required on first use, not at import: a process that never
 * does (a local `skillbox run`) loads not even `http` itself. Types still come from `import type`.
 */
export function nodeHttp(): typeof import('node:http') {
  return require('node:http') as typeof import('node:http');
}
