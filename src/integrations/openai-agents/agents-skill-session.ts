import type { AgentInputItem, Session } from '@openai/agents';
import { SessionConflictError } from '../../sessions/session-errors.js';
import type { NewSessionEvent, SessionKey, SessionStore } from '../../sessions/session-store.js';
import { createInMemoryStateView, type InMemoryStateView } from '../../state/in-memory-state-view.js';
import { mergeDeltas, type StateDelta } from '../../state/state-delta.js';

/** The event type of one SDK input item, stored as the event's `content`. */
export const agentsItemEventType = 'agents-item';
/** The event type that takes the latest item out of the history (`popItem`): the log stays append-only. */
export const agentsItemRemovedEventType = 'agents-item-removed';

// Appends race only with other writers of the same session; a few tries on top of them suffice.
const maxAppendAttempts = 5;

/**
 * The OpenAI Agents SDK's `Session` over a skillbox `SessionStore`: the SDK's items are events of
 * the session's log, and the disclosure state (which skills each agent loaded, their docs and
 * tools) is the session's state, changed by state events appended beside the items. Open it with
 * `AgentSkills.openSession`; a second process opening the same key sees the same items and state.
 */
export class AgentsSkillSession implements Session {
  /** The session's disclosure state; tool calls write into it, and the writes are stored with the next items. */
  readonly state: InMemoryStateView;
  private version: number;
  private pendingState: StateDelta = {};
  private pendingEvents: NewSessionEvent[] = [];
  /** The agent whose model call came last: the author of the items it produced. */
  currentAgent: string;

  private constructor(
    readonly store: SessionStore,
    readonly key: SessionKey,
    state: Record<string, string>,
    version: number,
    defaultAgent: string,
  ) {
    this.state = createInMemoryStateView(state);
    this.version = version;
    this.currentAgent = defaultAgent;
  }

  /** Opens the session of `key` in `store`, creating it when it is new. */
  static async open(store: SessionStore, key: SessionKey, defaultAgent: string): Promise<AgentsSkillSession> {
    const stored = (await store.getSession(key, { limit: 0 })) ?? (await store.createSession(key));
    return new AgentsSkillSession(store, key, stored.state, stored.version, defaultAgent);
  }

  async getSessionId(): Promise<string> {
    return this.key.sessionId;
  }

  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const items = (await this.liveItemEvents()).map((event) => event.content as AgentInputItem);
    return limit === undefined ? items : items.slice(Math.max(0, items.length - limit));
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    const events: NewSessionEvent[] = items.map((item) => ({
      author: 'role' in item && item.role === 'user' ? 'user' : this.currentAgent,
      type: agentsItemEventType,
      content: item,
    }));
    await this.append(events);
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    const last = (await this.liveItemEvents()).at(-1);
    if (last === undefined) return undefined;
    await this.append([{ author: 'system', type: agentsItemRemovedEventType, metadata: { removed: last.id } }]);
    return last.content as AgentInputItem;
  }

  /** Removes the session's items and state from the store; the session starts over, empty. */
  async clearSession(): Promise<void> {
    await this.store.deleteSession(this.key);
    const created = await this.store.createSession(this.key);
    for (const key of this.state.keys()) this.state.set(key, null);
    this.state.commit();
    this.version = created.version;
    this.pendingState = {};
    this.pendingEvents = [];
  }

  /** Stores state changes and events held since the last append (the SDK appends items after each model call). */
  async flush(): Promise<void> {
    await this.append([]);
  }

  /** A committed change of the disclosure state: stored with the next append. */
  recordStateChange(delta: StateDelta): void {
    this.pendingState = mergeDeltas(this.pendingState, delta);
  }

  /** An event (approval request or decision) stored with the next append. */
  recordEvent(event: NewSessionEvent): void {
    this.pendingEvents.push(event);
  }

  private async liveItemEvents() {
    const stored = await this.store.getSession(this.key);
    const live: NonNullable<typeof stored>['events'] = [];
    for (const event of stored?.events ?? []) {
      if (event.type === agentsItemEventType) live.push(event);
      else if (event.type === agentsItemRemovedEventType) {
        const index = live.findIndex((item) => item.id === event.metadata?.removed);
        if (index !== -1) live.splice(index, 1);
      }
    }
    return live;
  }

  private async append(items: NewSessionEvent[]): Promise<void> {
    const held = this.pendingEvents;
    const delta = this.pendingState;
    const events = [...held, ...items];
    if (Object.keys(delta).length > 0) events.push({ author: this.currentAgent, type: 'state', stateDelta: delta });
    if (events.length === 0) return;
    this.pendingEvents = [];
    this.pendingState = {};
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await this.store.appendEvents(this.key, events, { expectedVersion: this.version });
        this.version = result.version;
        return;
      } catch (error) {
        // Another writer appended first: the log is append-only, so ours go on top of theirs.
        if (error instanceof SessionConflictError && attempt < maxAppendAttempts) {
          this.version = error.actualVersion;
          continue;
        }
        // Not stored: kept for the next append, ahead of what comes later.
        this.pendingEvents = [...held, ...this.pendingEvents];
        this.pendingState = mergeDeltas(delta, this.pendingState);
        throw error;
      }
    }
  }
}
