import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Bytes this process holds on to (heap plus array buffers) after full collections: what a test of
 * "keeps at most N bytes of a flood" must compare, since RSS and a figure taken without collecting
 * also count garbage the collector has not got to yet, tens of megabytes on a loaded machine.
 * Vitest does not start workers with --expose-gc; setting the flag late and taking `gc` from a new
 * context is the documented way to get it then.
 */
export async function retainedBytes(): Promise<number> {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  collect();
  // V8 frees dead array buffers on a background thread after a collection: a second collection,
  // a turn later, finds the first one's done.
  await new Promise((resolve) => setTimeout(resolve, 50));
  collect();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}
