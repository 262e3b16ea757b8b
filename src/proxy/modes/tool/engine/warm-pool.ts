// The warm CLI pool (docs/performance.md "Warm CLI pool"): which processes to start ahead of time, with the spawn-time
// spec of likely requests, to wait on their still-open stdin. Most of a tool-mode answer's wait is the CLI's own
// start-up; a process started earlier has done that by the time the request comes. The processes themselves live in
// the one registry (processes.ts) in the state `warm`, under its cap on every process, its memory cap, its login
// check and a warm lifetime; this file holds only the policy. Rules, each tested in warm-pool.test.ts:
// - A process is keyed by its whole spec (model, system prompt, tool rules: everything fixed at spawn time); only a
//   request with exactly the same spec takes it, once (it is then a conversation with no history yet). The pool then
//   starts a replacement, on the next turn of the event loop, after the taker wrote its prompt.
// - What to keep warm is learned from recent traffic: the keys of the last `recentWindow` requests, most frequent
//   first, one process each, extras to the most frequent when there are fewer keys than `size`.
// - `size` caps the warm processes (0 turns the pool off); a process starts only with room under the registry's caps
//   (never ending another for it), assumed as large as the largest one seen.
// - A CLI that keeps dying while it waits (broken install, bad login) pauses the pool instead of respawning in a loop.

import type { CliProcesses } from './processes.js';
import type { RegisteredProcess } from './process-state.js';
import type { WarmEnd } from './registry-types.js';
import { poolSnapshot, type CliPoolSnapshot, type PoolCounts } from './warm-pool-snapshot.js';

export type { CliPoolSnapshot } from './warm-pool-snapshot.js';

/**
 * `S` is what a process is started with: the engine's is a ProcessSpec (spec.ts), keyed by the request's plan; by
 * default a list of arguments, keyed as JSON.
 */
export interface WarmPoolOptions<C extends RegisteredProcess, S = string[]> {
  /** Warm processes at most (config.cliPoolSize); 0 = off. */
  size: number;
  /** A warm process unused this long is ended (config.cliPoolIdleMs; the registry's warm lifetime). */
  idleMs: number;
  registry: CliProcesses<C>;
  /** Starts the CLI with this spec exactly as a chat would, stdin left open, under `key`. May throw. */
  spawn: (spec: S, key: string) => C;
  /** The arguments of a spec, to show the model of each key in the snapshot (default: the spec is the list). */
  argsOf?: (spec: S) => readonly string[];
  /** The memory cap, shown in the snapshot (the registry holds it). */
  maxRssBytes?: number;
  /** How many recent requests the pool learns from. */
  recentWindow?: number;
  /** The model flag, to show the model of each key in the snapshot (never the system prompt). */
  modelFlag?: string;
  now?: () => number;
}

/** Exits sooner than this after their start count as early deaths. */
const earlyDeathMs = 2000;
const earlyDeathsToPause = 3;
const pauseMs = 30_000;

export class WarmPool<C extends RegisteredProcess, S = string[]> {
  private readonly specByKey = new Map<string, S>();
  private recent: string[] = [];
  private readonly counts: PoolCounts = {
    hits: 0,
    misses: 0,
    started: 0,
    expired: 0,
    replaced: 0,
    died: 0,
    skippedForMemory: 0,
    skippedForCap: 0,
  };
  private earlyDeaths = 0;
  private pausedUntil = 0;
  private maxSeenRss = 0;
  private closed = false;
  private refillPending = false;
  private readonly now: () => number;
  private readonly windowSize: number;

  constructor(private readonly opts: WarmPoolOptions<C, S>) {
    this.now = opts.now ?? Date.now;
    this.windowSize = Math.max(1, opts.recentWindow ?? 32);
  }

  get enabled(): boolean {
    return this.opts.size > 0 && !this.closed;
  }

  /**
   * The request with this spec is about to run: a warm process started with exactly this spec, now busy for the
   * caller (who writes the conversation), or undefined. Either way the pool learns from the request and refills.
   * `key` is the spec's registry key, computed once by the request.
   */
  take(spec: S, key: string = JSON.stringify(spec)): C | undefined {
    if (!this.enabled) return undefined;
    this.remember(key, spec);
    const found = this.opts.registry.takeWarm(key);
    if (found) this.counts.hits++;
    else this.counts.misses++;
    this.scheduleRefill();
    return found;
  }

  /** A warm process left the registry without being taken (the registry tells). */
  ended(c: C, why: WarmEnd): void {
    if (why === 'expired' || why === 'replaced' || why === 'died') this.counts[why]++;
    if (why !== 'died') return;
    if (this.now() - c.startedAt < earlyDeathMs) this.noteEarlyDeath();
    else this.earlyDeaths = 0;
  }

  /** No more starts (stop and quit); the registry ends the processes. */
  close(): void {
    this.closed = true;
  }

  snapshot(): CliPoolSnapshot {
    const warm = this.opts.registry.inState('warm');
    const rss = this.measure(warm);
    return poolSnapshot(warm, this.counts, {
      enabled: this.enabled,
      size: this.opts.size,
      idleMs: this.opts.idleMs,
      recent: this.recent,
      modelOf: (key) => this.modelOf(key),
      pausedUntil: this.pausedUntil > this.now() ? this.pausedUntil : undefined,
      rss: rss === undefined ? undefined : { total: rss, maxSeen: this.maxSeenRss },
      maxRssBytes: this.opts.maxRssBytes,
    });
  }

  private remember(key: string, spec: S): void {
    this.recent.push(key);
    if (this.recent.length > this.windowSize) this.recent = this.recent.slice(-this.windowSize);
    this.specByKey.set(key, spec);
    // Forget the spec of keys that left the window and have no warm process (system prompts can be large).
    if (this.specByKey.size > this.windowSize) {
      const keep = new Set([...this.recent, ...this.opts.registry.inState('warm').map((c) => c.key)]);
      for (const k of this.specByKey.keys()) if (!keep.has(k)) this.specByKey.delete(k);
    }
  }

  /** How many processes each key should have: one per key by rank, then again from the top, `size` in all. */
  private desired(): Map<string, number> {
    const freq = new Map<string, number>();
    const lastSeen = new Map<string, number>();
    this.recent.forEach((k, i) => {
      freq.set(k, (freq.get(k) ?? 0) + 1);
      lastSeen.set(k, i);
    });
    const ranked = [...freq.keys()].sort((a, b) => freq.get(b)! - freq.get(a)! || lastSeen.get(b)! - lastSeen.get(a)!);
    const want = new Map<string, number>();
    if (ranked.length === 0) return want;
    for (let i = 0; i < this.opts.size; i++) {
      const k = ranked[i % ranked.length];
      want.set(k, (want.get(k) ?? 0) + 1);
    }
    return want;
  }

  /** Refills on the next turn of the event loop, not inside take(): the request that took one writes its prompt first. */
  private scheduleRefill(): void {
    if (this.refillPending) return;
    this.refillPending = true;
    setImmediate(() => {
      this.refillPending = false;
      this.refill();
    });
  }

  private refill(): void {
    if (!this.enabled || this.now() < this.pausedUntil) return;
    const { registry } = this.opts;
    registry.checkFingerprint();
    const want = this.desired();
    for (const [key, n] of want) {
      while (registry.inState('warm', key).length < n) {
        if (registry.inState('warm').length >= this.opts.size && !this.endSurplus(want)) return;
        this.measure(registry.inState('warm'));
        if (!registry.roomInMemory(this.maxSeenRss)) {
          this.counts.skippedForMemory++;
          return;
        }
        if (!registry.hasRoom()) {
          this.counts.skippedForCap++;
          return;
        }
        if (!this.start(key)) return;
      }
    }
  }

  /** Ends the oldest process of a key that has more than it should; false when there is none. */
  private endSurplus(want: Map<string, number>): boolean {
    const warm = this.opts.registry.inState('warm');
    const surplus = warm
      .filter((c) => warm.filter((o) => o.key === c.key).length > (want.get(c.key) ?? 0))
      .sort((a, b) => a.startedAt - b.startedAt)[0];
    if (!surplus) return false;
    this.opts.registry.endWarm(surplus);
    return true;
  }

  private start(key: string): boolean {
    const spec = this.specByKey.get(key);
    if (!spec) return false;
    let c: C;
    try {
      c = this.opts.spawn(spec, key);
    } catch {
      this.noteEarlyDeath();
      return false;
    }
    this.counts.started++;
    this.opts.registry.addWarm(c);
    return true;
  }

  /** The warm processes' memory together, learning the largest one seen; undefined when it cannot be measured. */
  private measure(warm: C[]): number | undefined {
    const each = new Map<C, number>();
    const total = this.opts.registry.rssOf(warm, each);
    for (const rss of each.values()) if (rss > this.maxSeenRss) this.maxSeenRss = rss;
    return this.opts.registry.measures ? total : undefined;
  }

  private noteEarlyDeath(): void {
    this.earlyDeaths++;
    if (this.earlyDeaths >= earlyDeathsToPause) {
      this.pausedUntil = this.now() + pauseMs;
      this.earlyDeaths = 0;
    }
  }

  private modelOf(key: string): string {
    const spec = this.specByKey.get(key);
    if (spec === undefined) return 'unknown';
    const args = this.opts.argsOf ? this.opts.argsOf(spec) : (spec as unknown as string[]);
    const i = args.indexOf(this.opts.modelFlag ?? '--model');
    return i >= 0 && i + 1 < args.length ? args[i + 1] : 'unknown';
  }
}
