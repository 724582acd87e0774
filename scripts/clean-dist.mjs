// The build starts from an empty dist/: tsc never deletes outputs whose source is gone, and
// everything in dist/ is published (a stale file, or a source map of an older build, would ship).
import { rmSync } from 'node:fs';

rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true });
