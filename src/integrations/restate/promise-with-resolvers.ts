// The Restate SDK calls `Promise.withResolvers` (Node 22+) when its modules load; Node 20 lacks it.
// Installed before the SDK is imported, and only where it is missing, so Node 22+ keeps its own.

interface WithResolvers {
  withResolvers?: <T>() => { promise: Promise<T>; resolve: (value: T) => void; reject: (reason?: unknown) => void };
}

/** Adds `Promise.withResolvers` when the running Node lacks it (Node 20). Returns true when it added it. */
export function installPromiseWithResolvers(): boolean {
  const promiseClass = Promise as unknown as WithResolvers;
  if (typeof promiseClass.withResolvers === 'function') return false;
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>(this: PromiseConstructor) {
      let resolve!: (value: T) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new this<T>((resolvePromise, rejectPromise) => {
        resolve = resolvePromise;
        reject = rejectPromise;
      });
      return { promise, resolve, reject };
    },
  });
  return true;
}
