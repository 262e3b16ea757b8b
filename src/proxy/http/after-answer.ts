// The bookkeeping of a request whose client already has its answer (the observer's read of a whole answer, the
// request's log line, metrics and ledger row) runs a moment later, in batches, instead of in the same burst of work
// as the answer's write. On a machine whose cores the clients and the provider share, a process that keeps working
// after a write holds a core the client it just woke may need, and the request that arrives next waits behind that
// work; one that goes back to waiting lets both run (docs/performance.md "The bookkeeping after the answer").
//
// The batch waits AFTER_ANSWER_MS, long enough to gather the answers of a light load into one run: each run is a
// wake-up of its own, and on a virtual machine a wake-up costs about as much as the bookkeeping of several
// requests. Under heavy load AFTER_ANSWER_BATCH answers start a run at once, so
// a batch stays short and holds little memory.
//
// Nothing reads a half-written account: whatever reads what this work records (the /metrics, /usage and health
// routes, the app's window through the controller, shutdown) calls settle() first and sees every answered
// request counted (docs/http.md "Bookkeeping after the answer").

/** How long the bookkeeping of an answered request waits at most (ms): short enough to be invisible to a reader. */
export const AFTER_ANSWER_MS = 25;

/** Answers waiting that start a run at once (at the end of this turn of the event loop), whatever the time. */
export const AFTER_ANSWER_BATCH = 64;

export class AfterAnswer {
  private queue: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Immediate | undefined;

  constructor(
    /** Told of a job that threw; the jobs after it still run. */
    private readonly failed: (err: unknown) => void,
    private readonly delayMs = AFTER_ANSWER_MS,
    private readonly batch = AFTER_ANSWER_BATCH,
  ) {}

  /**
   * Runs `job` within `delayMs`, at the end of this turn of the event loop once `batch` jobs wait, or at the next
   * settle(), whichever comes first; jobs run in the order given.
   */
  later(job: () => void): void {
    this.queue.push(job);
    if (this.soon !== undefined) return;
    if (this.queue.length >= this.batch) this.soon = setImmediate(this.fire);
    else this.timer ??= setTimeout(this.fire, this.delayMs);
  }

  /** Runs every waiting job now. */
  settle(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.soon !== undefined) {
      clearImmediate(this.soon);
      this.soon = undefined;
    }
    // A job may queue another (a record after the read it depends on): run until none is left.
    while (this.queue.length > 0) {
      const jobs = this.queue;
      this.queue = [];
      for (const job of jobs) {
        try {
          job();
        } catch (err) {
          this.failed(err);
        }
      }
    }
  }

  /** Jobs waiting (tests). */
  get waiting(): number {
    return this.queue.length;
  }

  private readonly fire = (): void => {
    this.settle();
  };
}
