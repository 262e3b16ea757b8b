// The timers of the registry (processes.ts): one per process in a resting state (its lifetime as warm, idle or
// waiting for tool results), and the periodic login check while any process rests.

export class RestTimers<C> {
  private readonly timers = new Map<C, ReturnType<typeof setTimeout>>();
  private checker: ReturnType<typeof setInterval> | undefined;

  /** `onEnd` after `ms` unless cleared or set again first; undefined `ms`: no lifetime. */
  set(c: C, ms: number | undefined, onEnd: () => void): void {
    this.clear(c);
    if (ms === undefined) return;
    const timer = setTimeout(onEnd, ms);
    timer.unref?.();
    this.timers.set(c, timer);
  }

  clear(c: C): void {
    const t = this.timers.get(c);
    if (t) clearTimeout(t);
    this.timers.delete(c);
  }

  /** Runs `check` every `everyMs` until stopChecking (once: a second call while it runs does nothing). */
  startChecking(check: () => void, everyMs: number): void {
    if (this.checker) return;
    this.checker = setInterval(check, everyMs);
    this.checker.unref?.();
  }

  stopChecking(): void {
    if (this.checker) clearInterval(this.checker);
    this.checker = undefined;
  }
}
