/** How many MCP sessions an HTTP server holds, and what it does when a new one finds them all taken. */
export interface SessionSlotSettings<Session> {
  /** Most sessions open, being set up or being ended at once. */
  maxSessions: number;
  /** A session with no request in flight, no open stream and no work held this long may be ended to make room. */
  reclaimAfterMs: number;
  /** How long a new session waits for a slot before it is refused; 0 refuses at once. */
  waitMs: number;
  /** Most new sessions waiting at once; one more is refused at once. */
  maxWaiting: number;
  /** True while the session has work running that no request shows (a background process): never reclaimed. */
  holdsWork(session: Session): boolean;
  /** Ends a session as a client's DELETE does (its processes and workspace with it); resolves once it has ended. */
  end(session: Session): Promise<void>;
}

/** What the slot table has done and holds, for operators and tests. */
export interface SessionSlotStats {
  /** Sessions open now. */
  open: number;
  /** New sessions waiting for a slot now. */
  waiting: number;
  /** Most slots taken at once (open, being set up and being ended), never above `maxSessions`. */
  peak: number;
  /** Idle sessions ended to make room for new ones. */
  reclaimed: number;
  /** New sessions refused (503) because no slot came free in time. */
  refused: number;
}

/** A slot granted to a new session: `fill` once the session has its id, or `release` if it never gets one. */
export interface SessionSlot<Session> {
  granted: true;
  fill(id: string, session: Session): void;
  /** Frees the slot unless it was filled; safe to call after `fill`. */
  release(): void;
}

/** No slot came free: the client is told to come back after `retryAfterSeconds`. */
export interface SessionSlotRefusal {
  granted: false;
  retryAfterSeconds: number;
  message: string;
}

interface Entry<Session> {
  session: Session;
  /** Requests in flight (POST, DELETE): their responses are not finished. */
  requests: number;
  /** Open GET streams: a client that listens for server messages is still there. */
  streams: number;
  /** When a request or stream last started or ended. */
  lastActivity: number;
  /**
   * The client closed its GET stream and has sent nothing since: it has left (the SDK client's
   * close() does this; the server closes streams only when it ends the session).
   */
  left: boolean;
}

interface Waiter<Session> {
  resolve(answer: SessionSlot<Session> | SessionSlotRefusal): void;
  timer: NodeJS.Timeout;
}

// Work held outside requests (a background process ending) raises no event here, so waiters look again this often.
const recheckMs = 250;

/**
 * The MCP sessions of one HTTP server, bounded to `maxSessions`. Memory is what the bound protects,
 * so a session counts from the moment it is being set up until it has fully ended. A client that
 * leaves without `DELETE` (most do: the SDK's `close()` sends none) would otherwise hold its slot
 * until the idle sweep, so when every slot is taken the least recently used idle session is ended
 * to make room, exactly as `DELETE` ends it. Idle means no request in flight, no open stream and no
 * work held (background processes) for `reclaimAfterMs`, or at once when the client closed its
 * GET stream and sent nothing since (it has gone); a busy session is never taken. When no
 * session is idle, a new one waits up to `waitMs` for a slot, then is refused with a time to retry.
 */
export class HttpSessionSlots<Session> {
  private readonly entries = new Map<string, Entry<Session>>();
  private readonly endings = new Set<Promise<void>>();
  private readonly waiters: Waiter<Session>[] = [];
  private reserved = 0;
  private recheck: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly counters = { peak: 0, reclaimed: 0, refused: 0 };

  constructor(private readonly settings: SessionSlotSettings<Session>) {}

  /** Slots taken: open sessions, sessions being set up and sessions still ending. */
  private get taken(): number {
    return this.entries.size + this.reserved + this.endings.size;
  }

  get(id: string): Session | undefined {
    return this.entries.get(id)?.session;
  }

  /** The open sessions. */
  sessions(): Session[] {
    return [...this.entries.values()].map((entry) => entry.session);
  }

  get size(): number {
    return this.entries.size;
  }

  stats(): SessionSlotStats {
    return { open: this.entries.size, waiting: this.waiters.length, ...this.counters };
  }

  /**
   * A slot for a new session: at once when one is free, else once one frees up or an idle session
   * ended to make room has ended, else (after `waitMs`, or at once when too many wait) a refusal.
   * `gone` aborts when the client stops waiting.
   */
  acquire(gone: AbortSignal): Promise<SessionSlot<Session> | SessionSlotRefusal> {
    if (this.closed) return Promise.resolve(this.refusal('the server is closing', false));
    if (gone.aborted) return Promise.resolve(this.refusal('the client stopped waiting', false));
    // Earlier waiters go first: a newcomer does not take the slot they wait for.
    if (this.waiters.length === 0 && this.taken < this.settings.maxSessions) return Promise.resolve(this.grant());
    if (this.waiters.length >= this.settings.maxWaiting) return Promise.resolve(this.refusal(this.fullMessage(), true));
    return new Promise((resolve) => {
      const waiter: Waiter<Session> = {
        resolve,
        timer: setTimeout(() => {
          // A session ending for this waiter (or one ahead of it) frees its slot soon: that is no reason to refuse.
          if (this.waiters.indexOf(waiter) < this.endings.size) return;
          this.dropWaiter(waiter);
          resolve(this.refusal(this.fullMessage(), true));
        }, this.settings.waitMs),
      };
      gone.addEventListener('abort', () => {
        if (this.dropWaiter(waiter)) resolve(this.refusal('the client stopped waiting', false));
      });
      this.waiters.push(waiter);
      this.admit();
    });
  }

  /**
   * Counts a request (`request`) or a GET stream (`stream`) of session `id` until `response`
   * closes. A session with either open is in use and cannot be reclaimed.
   */
  track(id: string, kind: 'request' | 'stream', response: { once(event: 'close', listener: () => void): unknown }) {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    const field = kind === 'request' ? 'requests' : 'streams';
    entry[field] += 1;
    entry.lastActivity = Date.now();
    entry.left = false;
    response.once('close', () => {
      entry[field] -= 1;
      entry.lastActivity = Date.now();
      if (kind === 'stream' && entry.streams === 0) entry.left = true;
      if (this.waiters.length > 0) this.scheduleRecheck();
    });
  }

  /**
   * The session `id` has closed (its client's DELETE, or an end this table started): it leaves the
   * table, and its slot stays taken until `ending` (its processes and workspace going) settles.
   */
  release(id: string, ending: Promise<void>): void {
    if (this.entries.delete(id)) this.holdUntilEnded(ending);
  }

  /** Ends every session unused (no request in flight) for longer than `idleMs`, busy with background work or not. */
  sweep(idleMs: number): void {
    const now = Date.now();
    for (const [id, entry] of this.entries)
      if (entry.requests === 0 && now - entry.lastActivity > idleMs) this.endEntry(id, entry);
  }

  /** Refuses every waiter, ends every session and resolves once all have ended. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.recheck);
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.resolve(this.refusal('the server is closing', false));
    }
    for (const [id, entry] of this.entries) this.endEntry(id, entry);
    while (this.endings.size > 0) await Promise.all([...this.endings]);
  }

  /** Ends the least recently used idle session; false when no session is idle. */
  private reclaimOne(): boolean {
    const now = Date.now();
    let oldest: [string, Entry<Session>] | undefined;
    for (const [id, entry] of this.entries) {
      if (!this.reclaimable(entry, now)) continue;
      if (oldest === undefined || entry.lastActivity < oldest[1].lastActivity) oldest = [id, entry];
    }
    if (oldest === undefined) return false;
    this.counters.reclaimed += 1;
    this.endEntry(oldest[0], oldest[1]);
    return true;
  }

  private reclaimable(entry: Entry<Session>, now: number): boolean {
    return (
      entry.requests === 0 &&
      entry.streams === 0 &&
      (entry.left || now - entry.lastActivity >= this.settings.reclaimAfterMs) &&
      !this.settings.holdsWork(entry.session)
    );
  }

  private endEntry(id: string, entry: Entry<Session>): void {
    this.entries.delete(id);
    this.holdUntilEnded(this.settings.end(entry.session));
  }

  private holdUntilEnded(ending: Promise<void>): void {
    const settled = ending.catch(() => undefined);
    this.endings.add(settled);
    void settled.finally(() => {
      this.endings.delete(settled);
      if (this.waiters.length > 0) this.admit();
    });
  }

  private grant(): SessionSlot<Session> {
    this.reserved += 1;
    this.counters.peak = Math.max(this.counters.peak, this.taken);
    let held = true;
    return {
      granted: true,
      fill: (id, session) => {
        if (!held) return;
        held = false;
        this.reserved -= 1;
        const entry = { session, requests: 0, streams: 0, lastActivity: Date.now(), left: false };
        this.entries.set(id, entry);
        // Set up while the server closed: it ends with the others.
        if (this.closed) this.endEntry(id, entry);
      },
      release: () => {
        if (!held) return;
        held = false;
        this.reserved -= 1;
        if (this.waiters.length > 0) this.admit();
      },
    };
  }

  /**
   * Lets waiters in, first come first served, while slots are free; then ends idle sessions until
   * every waiter left has a slot on its way (a session ending frees one when it has ended).
   */
  private admit(): void {
    while (this.waiters.length > 0 && !this.closed && this.taken < this.settings.maxSessions) {
      const waiter = this.waiters.shift() as Waiter<Session>;
      clearTimeout(waiter.timer);
      waiter.resolve(this.grant());
    }
    while (this.endings.size < this.waiters.length && this.reclaimOne());
    if (this.waiters.length > this.endings.size) this.scheduleRecheck();
  }

  /** Looks again when the first idle session becomes reclaimable, and at least every `recheckMs`. */
  private scheduleRecheck(): void {
    if (this.recheck !== undefined || this.closed) return;
    const wait = Math.max(1, Math.min(recheckMs, this.untilReclaimable() ?? recheckMs));
    this.recheck = setTimeout(() => {
      this.recheck = undefined;
      this.admit();
    }, wait);
    this.recheck.unref();
  }

  /** Milliseconds until the first idle session may be reclaimed; undefined when every session is busy. */
  private untilReclaimable(): number | undefined {
    const now = Date.now();
    let soonest: number | undefined;
    for (const entry of this.entries.values()) {
      if (entry.requests > 0 || entry.streams > 0 || this.settings.holdsWork(entry.session)) continue;
      const wait = entry.left ? 0 : Math.max(0, entry.lastActivity + this.settings.reclaimAfterMs - now);
      soonest = soonest === undefined ? wait : Math.min(soonest, wait);
    }
    return soonest;
  }

  private dropWaiter(waiter: Waiter<Session>): boolean {
    const index = this.waiters.indexOf(waiter);
    if (index === -1) return false;
    this.waiters.splice(index, 1);
    clearTimeout(waiter.timer);
    return true;
  }

  private fullMessage(): string {
    const waiting = this.waiters.length > 0 ? ` and ${this.waiters.length} new ones waiting` : '';
    return `the server has ${this.settings.maxSessions} sessions open, its limit${waiting}, and none has been idle long enough to end; try again later`;
  }

  /**
   * The time to retry: until the first idle session may be reclaimed, or, when every session is
   * busy, the reclaim delay (at least one second: Retry-After counts whole seconds).
   */
  private refusal(message: string, full: boolean): SessionSlotRefusal {
    if (full) this.counters.refused += 1;
    const until = this.untilReclaimable() ?? this.settings.reclaimAfterMs;
    return { granted: false, retryAfterSeconds: Math.max(1, Math.ceil(until / 1000)), message };
  }
}
