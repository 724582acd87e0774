import { createRequire } from 'node:module';

/**
 * `node:http`, reached through `require`. An ES import of it makes Node build the module's ES
 * facade, which reads every export; on Node 22 and later three of them (`WebSocket`, `CloseEvent`,
 * `MessageEvent`) are getters that load Node's bundled undici with some seventy internal modules,
 * ~40 ms, in every process that imports `skillbox` or runs `skillbox run`, whether or not it ever
 * speaks HTTP. Types still come from `import type`.
 */
export const http: typeof import('node:http') = createRequire(import.meta.url)('node:http');
