import type { NewSessionEvent, SessionKey, SessionStore } from '../session-store.js';

/** What the groups of session-store conformance cases share: a store opener, a key and an event maker. */
export interface SessionStoreCases {
  /** Opens a store on the test's backend (several calls: several processes on one backend). */
  open(): Promise<SessionStore>;
  key: SessionKey;
  message(text: string, extra?: Partial<NewSessionEvent>): NewSessionEvent;
}
