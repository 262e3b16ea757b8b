// The set under the registry of CLI processes (processes.ts): every process from its registration until it has
// exited, a timer per process in a resting state (its lifetime as warm, idle or waiting for tool results), the
// periodic login check while any process is here, and their memory.

import type { ConversationState, RegisteredProcess } from './process-state.js';
import { rssTogether } from './proc-facts.js';

export class ProcessSet<C extends RegisteredProcess> {
  private readonly all = new Set<C>();
  private readonly timers = new Map<C, ReturnType<typeof setTimeout>>();
  private checker: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly rssOfPid?: (pid: number) => number | undefined) {}

  /** Registers `c` until it exits; `onExit` runs then, unless it was forgotten first. */
  add(c: C, onExit: (c: C) => void): void {
    if (this.all.has(c)) return;
    this.all.add(c);
    void c.exited.then(() => {
      if (!this.all.has(c)) return;
      this.forget(c);
      onExit(c);
    });
  }

  has(c: C): boolean {
    return this.all.has(c);
  }

  get size(): number {
    return this.all.size;
  }

  list(): C[] {
    return [...this.all];
  }

  /** Processes in `state` (and started with `key`, when given). */
  inState(state: ConversationState, key?: string): C[] {
    return this.list().filter((c) => c.state === state && (key === undefined || c.key === key));
  }

  forget(c: C): void {
    this.clearTimer(c);
    this.all.delete(c);
    if (this.all.size === 0) this.stopChecking();
  }

  /** The lifetime of `c`'s resting state: `onEnd` runs when it is still here and in that state after `ms`. */
  restTimer(c: C, ms: number | undefined, onEnd: () => void): void {
    this.clearTimer(c);
    if (ms === undefined) return;
    const state = c.state;
    const timer = setTimeout(() => {
      if (c.state === state && this.all.has(c)) onEnd();
    }, ms);
    timer.unref?.();
    this.timers.set(c, timer);
  }

  clearTimer(c: C): void {
    const t = this.timers.get(c);
    if (t) clearTimeout(t);
    this.timers.delete(c);
  }

  /** Runs `check` every `everyMs` until stopChecking (a second call while it runs does nothing). */
  startChecking(check: () => void, everyMs: number): void {
    if (this.checker) return;
    this.checker = setInterval(check, everyMs);
    this.checker.unref?.();
  }

  stopChecking(): void {
    if (this.checker) clearInterval(this.checker);
    this.checker = undefined;
  }

  /** True when the platform tells a process's memory. */
  get measures(): boolean {
    return this.rssOfPid !== undefined;
  }

  /** Resident memory of `list` together, bytes (0 when the platform cannot tell); `each` gets every one measured. */
  rssOf(list: C[], each?: Map<C, number>): number {
    return rssTogether(list, this.rssOfPid, each);
  }
}
