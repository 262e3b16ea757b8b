// A cap on CLI children running at once, with a bounded first-in-first-out queue in front of it (docs/tool-mode.md
// "Process hygiene"). A request that finds the queue full is refused at once with a 429 and Retry-After, never
// parked without bound; a waiting request leaves the queue when its signal aborts (client gone, deadline).

import { ProxyError } from '../../../errors.js';

export interface SlotCounts {
  running: number;
  waiting: number;
  max: number;
  queueSize: number;
}

interface Waiter {
  resolve: (release: () => void) => void;
  reject: (err: unknown) => void;
}

/** Seconds a client is told to wait when the queue is full: long enough for a short answer to finish. */
const queueFullRetryAfterS = 5;

export class ChildSlots {
  private running = 0;
  private readonly waiters: Waiter[] = [];
  private closed = false;

  constructor(
    private readonly max: number,
    private readonly queueSize: number,
  ) {}

  counts(): SlotCounts {
    return { running: this.running, waiting: this.waiters.length, max: this.max, queueSize: this.queueSize };
  }

  /** Resolves with a release function once a slot is free; rejects when the queue is full or the signal aborts. */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (this.closed) return Promise.reject(new ProxyError('unavailable', 'The proxy is shutting down'));
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.running < this.max) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiters.length >= this.queueSize) {
      return Promise.reject(
        new ProxyError(
          'rate_limit',
          `Too many chats at once: all ${this.max} assistant CLI slots are busy and ${this.waiters.length} requests are already waiting (settings CLI_MAX_CONCURRENT and CLI_QUEUE_SIZE); retry shortly`,
          { retryAfter: queueFullRetryAfterS },
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(signal.reason);
      };
      const waiter: Waiter = {
        resolve: (release) => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
        reject: (err) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Refuses every waiting and later request (shutdown). */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0))
      waiter.reject(new ProxyError('unavailable', 'The proxy is shutting down'));
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      // The slot passes straight to the next waiter, so `running` stays the same.
      if (next) next.resolve(this.releaser());
      else this.running--;
    };
  }
}
