/**
 * `skillbox worker` from the sources, for tests that start a worker as its own process
 * (worker-process.ts): `node --import tsx worker-process-main.ts worker --listen ...`.
 */
import { main } from '../../cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`skillbox: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 2;
  },
);
