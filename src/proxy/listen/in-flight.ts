// The requests being answered right now, on every listener (and on the Responses WebSocket, through
// http/exchange.ts), so that a shutdown waits for them on their own end rather than by looking again and again
// (docs/http.md "Shutdown").
// The request log adds each request when it starts and deletes it when its response really ends (http/request-log.ts);
// the listeners await `drained()`, and past the grace period end what is left with `abortAll`.

import type { RequestAbort } from '../http/request-abort.js';
import type { InFlightRegistry } from '../http/request-log.js';

export class InFlight implements InFlightRegistry {
  private readonly open = new Set<RequestAbort>();
  /** Who waits for the last request's end; woken, and emptied, when the set becomes empty. */
  private waiting: Array<() => void> = [];

  get size(): number {
    return this.open.size;
  }

  add(abort: RequestAbort): void {
    this.open.add(abort);
  }

  delete(abort: RequestAbort): void {
    if (!this.open.delete(abort) || this.open.size > 0) return;
    const woken = this.waiting;
    this.waiting = [];
    for (const wake of woken) wake();
  }

  /** Resolves when no request is in flight: at once when none is, else when the last one ends. */
  drained(): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Fires every in-flight request's AbortSignal with `reason` (routes then end their CLI child or upstream call). */
  abortAll(reason: Error): void {
    for (const abort of this.open) abort.abort(reason);
  }
}
