import { SkillboxConfigError } from '../../config/config-error.js';
import { installPromiseWithResolvers } from './promise-with-resolvers.js';

/** The Restate SDK module, as `import('@restatedev/restate-sdk')` gives it. */
export type RestateSdk = typeof import('@restatedev/restate-sdk');

let loading: Promise<RestateSdk> | undefined;

/**
 * Loads the optional peer `@restatedev/restate-sdk`, after the `Promise.withResolvers` polyfill it
 * needs on Node 20, so the root entry and skillbox/ai-sdk never load it.
 */
export function loadRestateSdk(component: string): Promise<RestateSdk> {
  installPromiseWithResolvers();
  loading ??= import('@restatedev/restate-sdk').catch((error: unknown) => {
    loading = undefined;
    throw new SkillboxConfigError(component, [
      {
        option: '@restatedev/restate-sdk',
        problem: `could not be loaded (install it: npm install @restatedev/restate-sdk): ${(error as Error).message}`,
      },
    ]);
  });
  return loading;
}
