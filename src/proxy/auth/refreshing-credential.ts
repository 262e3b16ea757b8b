// A credential that refreshes itself before it expires, shared by direct mode (the CLI's OAuth file) and
// response-API mode (the OAuth2 file). Guarantees (docs/lessons.md "Tokens and auth"):
// - one refresh at a time, however many requests wait for it (single-flight);
// - a failed refresh is an error for the caller, never a silently sent stale token;
// - the file is re-read before refreshing, so a token the CLI refreshed meanwhile is used, not refreshed again;
// - writing back is the caller's `write`, which must be atomic and keep the file's other fields;
// - a token the upstream refused (401) before its expiry is refreshed once, and the request sent once more
//   (`send`): the one "refresh and retry" rule of direct and response-API modes.

interface RefreshingCredentialOptions<C> {
  /** Reads the credential from disk; throws a ProxyError (401 with the remedy) when missing or unreadable. */
  read(): Promise<C>;
  /** The token the upstream sees, to tell a refused credential from a newer one. */
  tokenOf(credential: C): string;
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

  /**
   * The upstream refused `refused` although it had not expired (revoked early, or replaced by a login elsewhere).
   * Returns a credential holding another token: one a concurrent request or the CLI already put in place, else a
   * refresh. The refresh is in flight from this moment, so a get() whose file read is still running waits for it
   * instead of caching the refused token again; many requests refused at once cause one refresh.
   */
  afterRefusal(refused: string): Promise<C> {
    const cached = this.cached;
    if (cached !== undefined && this.opts.tokenOf(cached) !== refused && this.fresh(cached))
      return Promise.resolve(cached);
    this.cached = undefined;
    this.inFlight ??= this.settle(async () => {
      const current = await this.opts.read();
      if (this.opts.tokenOf(current) !== refused && this.fresh(current)) return current;
      return this.refreshed(current);
    });
    return this.inFlight;
  }

  /**
   * Sends with a valid credential; when the upstream refuses it (`refused`, a 401), frees that answer, takes a
   * credential other than the refused one (afterRefusal) and sends once more. The second answer is returned
   * whatever it is: the caller turns a second refusal into its own "log in again" error.
   */
  async send<A>(
    attempt: (credential: C) => Promise<A>,
    refused: (answer: A) => boolean,
    discard: (answer: A) => Promise<unknown>,
  ): Promise<A> {
    // The cached credential, when fresh, without get()'s promise: this runs on every direct-mode request's path.
    const cached = this.cached;
    const credential = cached !== undefined && this.fresh(cached) ? cached : await this.get();
    const first = await attempt(credential);
    if (!refused(first)) return first;
    await discard(first).catch(() => undefined);
    return attempt(await this.afterRefusal(this.opts.tokenOf(credential)));
  }

  /** Forgets the cached credential (the file changed on disk). */
  invalidate(): void {
    this.cached = undefined;
  }

  private refreshFrom(current: C): Promise<C> {
    // A caller that read the old file just before another refresh finished must not refresh again with a
    // refresh token that may have been rotated.
    if (this.cached !== undefined && this.fresh(this.cached)) return Promise.resolve(this.cached);
    this.inFlight ??= this.settle(() => this.refreshed(current));
    return this.inFlight;
  }

  /** Runs one single-flight step (through `inFlight`) and caches what it produced. */
  private async settle(produce: () => Promise<C>): Promise<C> {
    try {
      const next = await produce();
      this.cached = next;
      return next;
    } catch (err) {
      this.cached = undefined;
      throw err;
    } finally {
      this.inFlight = undefined;
    }
  }

  /** One refresh: the token endpoint, then the write back. */
  private async refreshed(from: C): Promise<C> {
    try {
      const next = await this.opts.refresh(from);
      await this.opts.write(next);
      this.opts.onRefresh?.('ok');
      return next;
    } catch (err) {
      this.opts.onRefresh?.('failed', err);
      throw err;
    }
  }
}
