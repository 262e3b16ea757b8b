// The response-API session registry (docs/respapi-mode.md "Sessions"; the interface leaves the lifetime open; we choose
// an idle lifetime, default one hour, RESPAPI_SESSION_IDLE_MS). The upstream keeps the conversation state; the proxy
// only remembers which sessions it has seen, for /health/detailed and the desktop window. Nothing here is a secret.
// Expired sessions are pruned lazily (on every touch and snapshot), so no timer keeps the process alive; the
// number of sessions is bounded so a client inventing ids cannot grow memory without limit.

export interface SessionRecord {
  id: string;
  /** ms since the epoch */
  createdAt: number;
  lastUsedAt: number;
  requests: number;
  /** Whether the client chose the id (path route) or the proxy generated it. */
  origin: 'path' | 'generated';
}

export interface SessionView {
  id: string;
  origin: 'path' | 'generated';
  created: string;
  last_used: string;
  expires: string;
  requests: number;
}

interface SessionsSnapshot {
  active: number;
  created_total: number;
  expired_total: number;
  idle_lifetime_ms: number;
  sessions: SessionView[];
}

interface SessionRegistryOptions {
  idleMs: number;
  now?: () => number;
  /** Oldest sessions are dropped past this many (default 10 000). */
  maxSessions?: number;
}

export class SessionRegistry {
  /** Insertion order = least recently used first (touch re-inserts). */
  private readonly sessions = new Map<string, SessionRecord>();
  private createdTotal = 0;
  private expiredTotal = 0;
  private readonly now: () => number;
  private readonly maxSessions: number;

  constructor(private readonly opts: SessionRegistryOptions) {
    this.now = opts.now ?? Date.now;
    this.maxSessions = opts.maxSessions ?? 10_000;
  }

  get idleMs(): number {
    return this.opts.idleMs;
  }

  /** Records one request on a session, creating it when it is new or had expired. Returns a copy. */
  touch(id: string, origin: SessionRecord['origin']): SessionRecord {
    const now = this.now();
    this.prune(now);
    let rec = this.sessions.get(id);
    if (rec) {
      this.sessions.delete(id);
    } else {
      rec = { id, createdAt: now, lastUsedAt: now, requests: 0, origin };
      this.createdTotal++;
    }
    rec.lastUsedAt = now;
    rec.requests++;
    this.sessions.set(id, rec);
    while (this.sessions.size > this.maxSessions) {
      const oldest = this.sessions.keys().next().value as string;
      this.sessions.delete(oldest);
      this.expiredTotal++;
    }
    return { ...rec };
  }

  get(id: string): SessionRecord | undefined {
    this.prune(this.now());
    const rec = this.sessions.get(id);
    return rec ? { ...rec } : undefined;
  }

  /** Forgets a session (the desktop window's "end session"). */
  delete(id: string): boolean {
    return this.sessions.delete(id);
  }

  /** Drops sessions idle longer than the lifetime; returns how many went. */
  prune(now: number = this.now()): number {
    let n = 0;
    for (const [id, rec] of this.sessions) {
      // Least recently used first: the first live one ends the scan.
      if (now - rec.lastUsedAt < this.opts.idleMs) break;
      this.sessions.delete(id);
      n++;
    }
    this.expiredTotal += n;
    return n;
  }

  list(): SessionRecord[] {
    this.prune(this.now());
    return [...this.sessions.values()].reverse().map((r) => ({ ...r }));
  }

  /** The /health/detailed component: counts and the sessions, most recently used first. */
  snapshot(limit = 50): SessionsSnapshot {
    const iso = (ms: number) => new Date(ms).toISOString();
    const all = this.list();
    return {
      active: all.length,
      created_total: this.createdTotal,
      expired_total: this.expiredTotal,
      idle_lifetime_ms: this.opts.idleMs,
      sessions: all.slice(0, limit).map((r) => ({
        id: r.id,
        origin: r.origin,
        created: iso(r.createdAt),
        last_used: iso(r.lastUsedAt),
        expires: iso(r.lastUsedAt + this.opts.idleMs),
        requests: r.requests,
      })),
    };
  }
}
