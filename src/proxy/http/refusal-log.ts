// How loudly a refusal is logged (docs/security.md "A web page in the user's browser").
// The guards (cross-site-guard.ts, host-guard.ts) refuse what a web page or a rebinding page sends, and node's parser
// what a broken client sends (client-error.ts); such a sender can send thousands a minute: one warn line each would
// flood the log and the desktop window's live log and push out every line the user needs. So, per source (the page's
// Origin, the refused Host name, the parser's error code), the first refusal is logged at warn and the ones within
// the next minute at debug; the next warn line for that source says how many went to debug since the one before
// (`refusedSinceLastWarn`). Every refusal is still answered and counted in its metric.
// The same rule as the connection caps' lines (connection-caps.ts), per source rather than per cap.

export interface RefusalLogLevel {
  level: 'warn' | 'debug';
  /** On a warn line: the refusals from the same source logged at debug since its previous warn line. */
  refusedSinceLastWarn: number;
}

/** Where refusals go once `maxSources` sources are being tracked: all further sources share one minute. */
const otherSources = '(other sources)';

export class RefusalLog {
  private readonly sources = new Map<string, { warnedAt: number; since: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly everyMs = 60_000,
    /** Bounds the memory a sender inventing sources (a new Origin each time) can make this hold. */
    private readonly maxSources = 256,
  ) {}

  /** Records one refusal from `source` and says at which level its log line goes. */
  note(source: string): RefusalLogLevel {
    const t = this.now();
    let key = source;
    let entry = this.sources.get(key);
    if (entry === undefined && this.sources.size >= this.maxSources) {
      // Sources quiet for a whole interval have nothing left to hold back; forget them first.
      for (const [k, e] of this.sources) if (t - e.warnedAt >= this.everyMs) this.sources.delete(k);
      if (this.sources.size >= this.maxSources) {
        key = otherSources;
        entry = this.sources.get(key);
      }
    }
    if (entry !== undefined && t - entry.warnedAt < this.everyMs) {
      entry.since++;
      return { level: 'debug', refusedSinceLastWarn: 0 };
    }
    this.sources.set(key, { warnedAt: t, since: 0 });
    return { level: 'warn', refusedSinceLastWarn: entry?.since ?? 0 };
  }
}
