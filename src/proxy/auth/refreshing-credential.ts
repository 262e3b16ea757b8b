// A credential that refreshes itself before it expires, shared by direct mode (the CLI's OAuth file) and
// response-API mode (the OAuth2 file). Guarantees (PEERS.md "Tokens and auth"):
// - one refresh at a time, however many requests wait for it (single-flight);
// - a failed refresh is an error for the caller, never a silently sent stale token;
// - the file is re-read before refreshing, so a token the CLI refreshed meanwhile is used, not refreshed again;
// - writing back is the caller's `write`, which must be atomic and keep the file's other fields.

export interface RefreshingCredentialOptions<C> {
  /** Reads the credential from disk; throws a ProxyError (401 with the remedy) when missing or unreadable. */
  read(): Promise<C>;
  /** Expiry in ms since the epoch; undefined = never expires (or unknown). */
  expiresAt(credential: C): number | undefined;
  /** Calls the token endpoint and returns the new credential; throws a ProxyError on failure. */
  refresh(credential: C): Promise<C>;
  /** Persists the refreshed credential. */
  write(credential: C): Promise<void>;
  /** Refresh this long before expiry. */
  skewMs: number;
  now?: () => number;
  /** Told about refreshes (never with the token). */
  onRefresh?: (outcome: 'ok' | 'failed', error?: unknown) => void;
}

export class RefreshingCredential<C> {
  private inFlight: Promise<C> | undefined;
  private cached: C | undefined;

  constructor(private readonly opts: RefreshingCredentialOptions<C>) {}

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private fresh(c: C): boolean {
    const exp = this.opts.expiresAt(c);
    return exp === undefined || exp - this.opts.skewMs > this.now();
  }

  /** A credential that is valid now, refreshing it first when it is about to expire. */
  async get(): Promise<C> {
    if (this.cached !== undefined && this.fresh(this.cached)) return this.cached;
    if (this.inFlight) return this.inFlight;
    const current = await this.opts.read();
    if (this.fresh(current)) {
      this.cached = current;
      return current;
    }
    return this.refreshFrom(current);
  }

  /** Refreshes even when the expiry says the token is fine (after the upstream answered 401). */
  forceRefresh(): Promise<C> {
    // The refresh is in flight from this moment: a get() racing with the file read below waits for it instead of
    // caching the refused token from the file again (which the refresh would then have returned as "fresh").
    this.cached = undefined;
    this.inFlight ??= this.run(() => this.opts.read());
    return this.inFlight;
  }

  /** Forgets the cached credential (the file changed on disk). */
  invalidate(): void {
    this.cached = undefined;
  }

  private refreshFrom(current: C): Promise<C> {
    // A caller that read the old file just before another refresh finished must not refresh again with a
    // refresh token that may have been rotated.
    if (this.cached !== undefined && this.fresh(this.cached)) return Promise.resolve(this.cached);
    this.inFlight ??= this.run(async () => current);
    return this.inFlight;
  }

  /** One refresh: read what to refresh from, refresh, write back; single-flight through `inFlight`. */
  private async run(from: () => Promise<C>): Promise<C> {
    try {
      const next = await this.opts.refresh(await from());
      await this.opts.write(next);
      this.cached = next;
      this.opts.onRefresh?.('ok');
      return next;
    } catch (err) {
      this.cached = undefined;
      this.opts.onRefresh?.('failed', err);
      throw err;
    } finally {
      this.inFlight = undefined;
    }
  }
}
