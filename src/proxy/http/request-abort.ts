// The abort handle of one request. Most requests finish without anyone listening for an abort, so the
// AbortController (and its signal) is created only when a route first asks for the signal; an abort that comes
// before that is remembered and applied when the signal is made.

export class RequestAbort {
  private controller: AbortController | undefined;
  private pendingReason: unknown;
  private abortedEarly = false;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedEarly) this.controller.abort(this.pendingReason);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.controller ? this.controller.signal.aborted : this.abortedEarly;
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    if (this.controller) this.controller.abort(reason);
    else {
      this.abortedEarly = true;
      this.pendingReason = reason;
    }
  }
}
