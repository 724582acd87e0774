import { MemorySessionStore } from './memory-session-store.js';
import { describeSessionStoreConformance } from './testing/session-store-conformance.js';

// Two "stores" on one memory backend are the same object: the process is the backend.
describeSessionStoreConformance(
  'memory',
  async () => {
    const store = new MemorySessionStore();
    return { open: async () => store, destroy: async () => undefined };
  },
  { durable: false },
);
