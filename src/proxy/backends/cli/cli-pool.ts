// The warm CLI pool (docs/performance.md "Warm CLI pool"): assistant CLI processes started ahead of time with the
// spawn-time flags of likely requests, waiting on their still-open stdin. Most of a tool-mode answer's wait is the
// CLI's own start-up (loading its code, reading its login and settings); a process started earlier has done that
// by the time the request comes, so the prompt written into it is answered sooner.
//
// Rules (each one is tested in cli-pool.test.ts):
// - A process is keyed by its whole argv (model, system prompt, tool rules: everything fixed at spawn time); only a
//   request with exactly the same argv may take it, and each process is handed out once, then belongs to the
//   caller (the CLI backend: a warm process is a live conversation with no history yet, cli-conversation.ts). The
//   pool then starts a replacement.
// - What to keep warm is learned from recent traffic: the keys of the last `recentWindow` requests, most frequent
//   first, one process each, extras to the most frequent when there are fewer keys than `size`.
// - `size` caps the processes (0 turns the pool off); `maxRssBytes` caps their memory together (measured, when the
//   platform can tell); a process unused for `idleMs` is ended and not replaced until traffic asks for it again.
// - A process started before the login or the settings changed (`fingerprint`, e.g. the credential file's mtime
//   and a hash of the settings that reach the child) is never handed out: every warm process is replaced.
// - A CLI that keeps dying while it waits (broken install, bad login) pauses the pool instead of respawning in a
//   loop. close() ends every warm process and waits for them.
//
// Spawning, ending and measuring are injected (STYLE.md: inject what touches the world), so the pool is tested with
// the fake CLI and wired to the backend's own execa spawn, which must start the child exactly as a cold chat would
// (same argv, env, cwd, process group) but with stdin left open.

import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

/** What the pool needs of a child process (node's ChildProcess and execa's ResultPromise both fit). */
export interface PoolChild {
  readonly pid?: number;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | string | null;
  once(event: 'exit', listener: () => void): unknown;
}

export interface CliPoolOptions<C extends PoolChild> {
  /** Warm processes at most (config.cliPoolSize); 0 = off. */
  size: number;
  /** A process unused this long is ended (config.cliPoolIdleMs). */
  idleMs: number;
  /** Starts the CLI with these arguments exactly as a chat would, stdin left open. May throw. */
  spawn: (args: string[]) => C;
  /** Ends a child for good (end-child.ts terminate: SIGTERM to its group, SIGKILL after a grace period). */
  end: (child: C) => void;
  /** Login and settings the children were started with; a different value replaces every warm process. */
  fingerprint?: () => string;
  /** Memory cap of the warm processes together, bytes (undefined: no cap). */
  maxRssBytes?: number;
  /** Resident memory of a process, bytes; undefined when the platform cannot tell. */
  rssOf?: (pid: number) => number | undefined;
  /** How many recent requests the pool learns from. */
  recentWindow?: number;
  /**
   * Whether one more process may start under the proxy's cap on every CLI process (CLI_LIVE_MAX, counted by the
   * live-conversation registry): a warm process never ends another process to make its own room.
   */
  room?: () => boolean;
  /** The model flag, to show the model of each key in the snapshot (never the system prompt). */
  modelFlag?: string;
  now?: () => number;
}

interface Entry<C> {
  child: C;
  key: string;
  fingerprint: string;
  startedAt: number;
  timer: ReturnType<typeof setTimeout>;
}

export interface CliPoolSnapshot {
  enabled: boolean;
  size: number;
  idleMs: number;
  /** Processes waiting right now. */
  warm: number;
  /** Per learned key: its model, a short hash of the whole argv, requests in the window, processes warm. */
  keys: Array<{ model: string; id: string; recentRequests: number; warm: number }>;
  hits: number;
  misses: number;
  started: number;
  expired: number;
  /** Ended because the login or settings changed. */
  replaced: number;
  /** Exited by themselves while waiting. */
  died: number;
  /** Not started because of the memory cap. */
  skippedForMemory: number;
  /** Not started because the cap on every CLI process (CLI_LIVE_MAX) was reached. */
  skippedForCap: number;
  /** Set while the pool pauses after repeated early exits. */
  pausedUntil?: number;
  /** Resident memory of the warm processes together and of the largest one seen, bytes (when measurable). */
  rssBytes?: number;
  maxSeenRssBytes?: number;
  maxRssBytes?: number;
}

/** Exits sooner than this after their start count as early deaths. */
const earlyDeathMs = 2000;
const earlyDeathsToPause = 3;
const pauseMs = 30_000;

export class CliPool<C extends PoolChild> {
  private readonly warmByKey = new Map<string, Array<Entry<C>>>();
  private readonly argsByKey = new Map<string, string[]>();
  private recent: string[] = [];
  private readonly counts = {
    hits: 0,
    misses: 0,
    started: 0,
    expired: 0,
    replaced: 0,
    died: 0,
    skippedForMemory: 0,
    skippedForCap: 0,
  };
  private lastFingerprint: string | undefined;
  private earlyDeaths = 0;
  private pausedUntil = 0;
  private maxSeenRss = 0;
  private closed = false;
  private refillPending = false;
  private readonly now: () => number;
  private readonly windowSize: number;

  constructor(private readonly opts: CliPoolOptions<C>) {
    this.now = opts.now ?? Date.now;
    this.windowSize = Math.max(1, opts.recentWindow ?? 32);
  }

  get enabled(): boolean {
    return this.opts.size > 0 && !this.closed;
  }

  /**
   * The request with these spawn arguments is about to run. Returns a warm child started with exactly these
   * arguments (stdin open; the caller writes the prompt, ends stdin and owns the child from now on), or undefined:
   * then the caller starts its own. Either way the pool learns from the request and refills.
   */
  take(args: string[]): C | undefined {
    if (!this.enabled) return undefined;
    const key = keyOf(args);
    this.remember(key, args);
    this.checkFingerprint();
    const list = this.warmByKey.get(key);
    let found: Entry<C> | undefined;
    while (list && list.length > 0 && !found) {
      const e = list.shift()!;
      clearTimeout(e.timer);
      if (isAlive(e.child)) found = e;
    }
    if (list && list.length === 0) this.warmByKey.delete(key);
    if (found) this.counts.hits++;
    else this.counts.misses++;
    this.scheduleRefill();
    return found?.child;
  }

  /** Warm processes right now. */
  warmCount(): number {
    return this.allEntries().length;
  }

  /** Ends the oldest warm process to make room for a request's own; false when there is none. */
  endOldest(): boolean {
    const oldest = this.allEntries().sort((a, b) => a.startedAt - b.startedAt)[0];
    if (!oldest) return false;
    this.discard(oldest);
    return true;
  }

  /** Ends every warm process (stop and quit) and waits until they have exited. */
  async close(): Promise<void> {
    this.closed = true;
    const all = this.allEntries();
    this.warmByKey.clear();
    for (const e of all) {
      clearTimeout(e.timer);
      this.opts.end(e.child);
    }
    await Promise.all(all.map((e) => exited(e.child)));
  }

  snapshot(): CliPoolSnapshot {
    const entries = this.allEntries();
    const freq = this.frequencies();
    const keys = [...new Set([...freq.keys(), ...this.warmByKey.keys()])].map((key) => ({
      model: this.modelOf(key),
      id: createHash('sha256').update(key).digest('hex').slice(0, 8),
      recentRequests: freq.get(key) ?? 0,
      warm: this.warmByKey.get(key)?.length ?? 0,
    }));
    const rss = this.measureRss(entries);
    return {
      enabled: this.enabled,
      size: this.opts.size,
      idleMs: this.opts.idleMs,
      warm: entries.length,
      keys,
      ...this.counts,
      ...(this.pausedUntil > this.now() ? { pausedUntil: this.pausedUntil } : {}),
      ...(rss === undefined ? {} : { rssBytes: rss, maxSeenRssBytes: this.maxSeenRss }),
      ...(this.opts.maxRssBytes === undefined ? {} : { maxRssBytes: this.opts.maxRssBytes }),
    };
  }

  private remember(key: string, args: string[]): void {
    this.recent.push(key);
    if (this.recent.length > this.windowSize) this.recent = this.recent.slice(-this.windowSize);
    this.argsByKey.set(key, args);
    // Forget the argv of keys that left the window and have no warm process (system prompts can be large).
    if (this.argsByKey.size > this.windowSize) {
      const live = new Set([...this.recent, ...this.warmByKey.keys()]);
      for (const k of this.argsByKey.keys()) if (!live.has(k)) this.argsByKey.delete(k);
    }
  }

  private frequencies(): Map<string, number> {
    const freq = new Map<string, number>();
    for (const k of this.recent) freq.set(k, (freq.get(k) ?? 0) + 1);
    return freq;
  }

  /** How many processes each key should have: one per key by rank, then again from the top, `size` in all. */
  private desired(): Map<string, number> {
    const freq = this.frequencies();
    const lastSeen = new Map<string, number>();
    this.recent.forEach((k, i) => lastSeen.set(k, i));
    const ranked = [...freq.keys()].sort((a, b) => freq.get(b)! - freq.get(a)! || lastSeen.get(b)! - lastSeen.get(a)!);
    const want = new Map<string, number>();
    if (ranked.length === 0) return want;
    for (let i = 0; i < this.opts.size; i++) {
      const k = ranked[i % ranked.length];
      want.set(k, (want.get(k) ?? 0) + 1);
    }
    return want;
  }

  private checkFingerprint(): void {
    if (!this.opts.fingerprint) return;
    const fp = this.opts.fingerprint();
    if (this.lastFingerprint !== undefined && fp !== this.lastFingerprint) {
      for (const e of this.allEntries()) {
        if (e.fingerprint !== fp) {
          this.discard(e);
          this.counts.replaced++;
        }
      }
    }
    this.lastFingerprint = fp;
  }

  /**
   * Refills on the next turn of the event loop, not inside take(): starting a process forks this one, and the
   * request that just took a warm child should write its prompt first.
   */
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
    const want = this.desired();
    for (const [key, n] of want) {
      while ((this.warmByKey.get(key)?.length ?? 0) < n) {
        if (this.allEntries().length >= this.opts.size && !this.evictSurplus(want)) return;
        if (!this.roomInMemory()) {
          this.counts.skippedForMemory++;
          return;
        }
        if (this.opts.room && !this.opts.room()) {
          this.counts.skippedForCap++;
          return;
        }
        if (!this.start(key)) return;
      }
    }
  }

  /** Ends the oldest process of a key that has more than it should; false when there is none. */
  private evictSurplus(want: Map<string, number>): boolean {
    const surplus = this.allEntries()
      .filter((e) => (this.warmByKey.get(e.key)?.length ?? 0) > (want.get(e.key) ?? 0))
      .sort((a, b) => a.startedAt - b.startedAt)[0];
    if (!surplus) return false;
    this.discard(surplus);
    return true;
  }

  private roomInMemory(): boolean {
    const cap = this.opts.maxRssBytes;
    if (cap === undefined) return true;
    const entries = this.allEntries();
    const used = this.measureRss(entries);
    if (used === undefined) return true;
    // A new process is assumed as large as the largest one seen.
    return used + this.maxSeenRss <= cap;
  }

  private measureRss(entries: Array<Entry<C>>): number | undefined {
    if (!this.opts.rssOf) return undefined;
    let sum = 0;
    for (const e of entries) {
      const rss = e.child.pid === undefined ? undefined : this.opts.rssOf(e.child.pid);
      if (rss === undefined) continue;
      sum += rss;
      if (rss > this.maxSeenRss) this.maxSeenRss = rss;
    }
    return sum;
  }

  private start(key: string): boolean {
    const args = this.argsByKey.get(key);
    if (!args) return false;
    let child: C;
    try {
      child = this.opts.spawn(args);
    } catch {
      this.noteEarlyDeath();
      return false;
    }
    this.counts.started++;
    const entry: Entry<C> = {
      child,
      key,
      fingerprint: this.lastFingerprint ?? '',
      startedAt: this.now(),
      timer: setTimeout(() => {
        if (this.remove(entry)) {
          this.counts.expired++;
          this.opts.end(child);
        }
      }, this.opts.idleMs),
    };
    entry.timer.unref?.();
    child.once('exit', () => {
      // Still ours: it died while waiting (a handed-out child is no longer in the pool).
      if (!this.remove(entry)) return;
      clearTimeout(entry.timer);
      this.counts.died++;
      if (this.now() - entry.startedAt < earlyDeathMs) this.noteEarlyDeath();
      else this.earlyDeaths = 0;
    });
    const list = this.warmByKey.get(key) ?? [];
    list.push(entry);
    this.warmByKey.set(key, list);
    return true;
  }

  private noteEarlyDeath(): void {
    this.earlyDeaths++;
    if (this.earlyDeaths >= earlyDeathsToPause) {
      this.pausedUntil = this.now() + pauseMs;
      this.earlyDeaths = 0;
    }
  }

  private discard(e: Entry<C>): void {
    if (!this.remove(e)) return;
    clearTimeout(e.timer);
    this.opts.end(e.child);
  }

  /** Takes an entry out of the pool; false when it was not there (already handed out or removed). */
  private remove(e: Entry<C>): boolean {
    const list = this.warmByKey.get(e.key);
    const i = list?.indexOf(e) ?? -1;
    if (!list || i < 0) return false;
    list.splice(i, 1);
    if (list.length === 0) this.warmByKey.delete(e.key);
    return true;
  }

  private allEntries(): Array<Entry<C>> {
    return [...this.warmByKey.values()].flat();
  }

  private modelOf(key: string): string {
    const args = this.argsByKey.get(key);
    const flag = this.opts.modelFlag ?? '--model';
    const i = args ? args.indexOf(flag) : -1;
    return i >= 0 && args && i + 1 < args.length ? args[i + 1] : 'unknown';
  }
}

function keyOf(args: string[]): string {
  return JSON.stringify(args);
}

function isAlive(c: PoolChild): boolean {
  return c.exitCode === null && c.signalCode === null;
}

function exited(c: PoolChild): Promise<void> {
  if (!isAlive(c)) return Promise.resolve();
  return new Promise((resolve) => c.once('exit', () => resolve()));
}

/**
 * A fingerprint of files (modification time and size; "missing" when absent) and of settings, for
 * CliPoolOptions.fingerprint: the CLI's credential and settings files, and the proxy settings that reach the child.
 */
export function filesFingerprint(paths: string[], settings: unknown = null): string {
  const parts = paths.map((p) => {
    try {
      const s = statSync(p);
      return `${s.mtimeMs}:${s.size}`;
    } catch {
      return 'missing';
    }
  });
  return createHash('sha256')
    .update(JSON.stringify([parts, settings]))
    .digest('hex');
}

/** Resident memory of a process from /proc (Linux), bytes; undefined elsewhere or when it is gone. */
export function procRss(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
