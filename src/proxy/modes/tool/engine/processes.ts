// The one registry of tool mode's CLI processes (docs/tool-mode.md "Live conversations"). Every process the
// proxy runs is here from its start until it ends, in a state of its own state machine (process-state.ts). One cap
// bounds them all (`max`, CLI_LIVE_MAX), one memory cap (`maxRssBytes`, CLI_LIVE_MAX_MB), one login check
// (`fingerprint`), one lifetime per resting state (warm, idle, waiting-for-tools). Rules, tested in processes.test.ts:
// - A request continues an idle process only when it was started with the same key (arguments, environment, system
//   prompt) and the request's messages are its history plus one new user message (conversation-history.ts);
//   tool results reach a waiting process only on the same terms. One request at a time: a busy one is never handed out.
// - To start one more process at the cap, a warm one ends first, then the least recently used one nobody reads (idle
//   or waiting); a busy one never. Keeping a process idle or waiting adds none, so it ends none but to meet the
//   memory cap (idle ones only). Waiting ones are further capped at `maxWaiting`, the oldest ending.
// - A response that chains by id (docs/responses-store.md) names the process that answered the response it
//   continues: that process, idle or waiting for tools under the same key, is taken without comparing the history.
// - A process started under another login or settings is ended: warm and idle ones at once (checked on every request
//   and every few seconds), busy ones when their turn ends.
// Ending is injected through the process's own end(), so the rules are tested without processes.

import type { NativeMessageParam } from '../../../formats/native.js';
import type { HistoryEntry } from './conversation-history.js';
import { digestsOf, type MessageDigests } from './message-digests.js';
import { ProcessSet } from './process-set.js';
import type { ConversationState, RegisteredProcess } from './process-state.js';
import {
  registrySnapshot,
  type CliProcessesOptions,
  type ConversationCounts,
  type LiveConversationsSnapshot,
  type WarmEnd,
} from './registry-types.js';

export type { LiveConversationsSnapshot } from './registry-types.js';

/** A request's messages, or their digests when the request already made them (message-digests.ts). */
type Messages = NativeMessageParam[] | MessageDigests;

/**
 * The history a process keeps after a turn: none when the request chained by id (the next one will name this
 * response: docs/responses-store.md), so a chain is never hashed; the process is then continued by id only.
 */
export function historyToKeep(previous: string | undefined, history: () => HistoryEntry[]): HistoryEntry[] {
  return previous === undefined ? history() : [];
}

export class CliProcesses<C extends RegisteredProcess> {
  private readonly set: ProcessSet<C>;
  private readonly counts: ConversationCounts = { continued: 0, kept: 0, expired: 0, evicted: 0, replaced: 0, lost: 0 };
  private closed = false;
  /** The process that answered each response of a chain (and, back, the response each one answered last). */
  private readonly byResponse = new Map<string, C>();
  private readonly responseOf = new Map<C, string>();
  readonly now: () => number;

  constructor(private readonly opts: CliProcessesOptions<C>) {
    this.now = opts.now ?? Date.now;
    this.set = new ProcessSet<C>(opts.rssOf);
  }

  /** Processes are kept between turns (CLI_LIVE_MAX above 0, not shut down). */
  get enabled(): boolean {
    return this.opts.max > 0 && !this.closed;
  }

  /** Every process, in any state. */
  list(): C[] {
    return this.set.list();
  }

  /** Processes in `state` (and started with `key`, when given). */
  inState(state: ConversationState, key?: string): C[] {
    return this.set.inState(state, key);
  }

  /** True when one more process may start without ending another; one being ended counts until it has exited. */
  hasRoom(): boolean {
    return this.opts.max <= 0 || this.set.size < this.opts.max;
  }

  /**
   * Room for one more process under `max` once the processes being ended have exited: a warm one ends first, then the
   * least recently used one nobody reads (idle or waiting). Never a busy one (they are at most the child slots, at
   * most `max`). False when nothing could go.
   */
  makeRoom(): boolean {
    if (this.opts.max <= 0) return true;
    this.checkFingerprint();
    while (this.set.size - this.inState('ended').length >= this.opts.max) {
      const warm = this.inState('warm').sort((a, b) => a.startedAt - b.startedAt)[0];
      if (warm) {
        this.endOne(warm, 'evicted');
        continue;
      }
      const victim = this.list()
        .filter((o) => o.state === 'idle' || o.state === 'waiting-for-tools')
        .sort((a, b) => a.lastUsedAt - b.lastUsedAt)[0];
      if (!victim) return false;
      this.counts.evicted++;
      this.endOne(victim);
    }
    return true;
  }

  /**
   * Starts a process with `start` (synchronous, so nothing else takes the room first) once there is room for it, and
   * registers it busy. The processes ended to make room are waited for until they have exited, so the processes alive
   * never exceed `max`. Undefined when no room can be made (every process is busy).
   */
  async startWithRoom(start: () => C, signal?: AbortSignal): Promise<C | undefined> {
    for (;;) {
      if (!this.makeRoom()) return undefined;
      if (this.hasRoom()) break;
      await Promise.race(this.inState('ended').map((c) => c.exited));
      if (signal?.aborted) throw signal.reason;
    }
    const c = start();
    this.track(c);
    return c;
  }

  /** A warm process started ahead of a request (warm-pool.ts): it waits `warmMs` to be taken. */
  addWarm(c: C): void {
    this.add(c);
    this.set.restTimer(c, this.opts.warmMs, () => this.endOne(c, 'expired'));
    this.startChecker();
  }

  /** Ends a warm process the pool no longer wants (not counted: the pool chose it). */
  endWarm(c: C): void {
    if (c.state === 'warm') this.endOne(c, 'evicted');
  }

  /** True when the platform tells a process's memory (rssOf). */
  get measures(): boolean {
    return this.set.measures;
  }

  /** The oldest live warm process started with `key`, now busy for the caller; or undefined. */
  takeWarm(key: string): C | undefined {
    this.checkFingerprint();
    const c = this.inState('warm', key)
      .filter((o) => o.alive)
      .sort((a, b) => a.startedAt - b.startedAt)[0];
    if (c) this.begin(c);
    return c;
  }

  /** A request reads a turn of `c`, a process it started: it is registered, busy. */
  track(c: C): void {
    this.add(c);
    this.begin(c);
  }

  /** `c` answered the response `id` (a response that chains by id): the next one in the chain may name it. */
  answered(c: C, id: string): void {
    const before = this.responseOf.get(c);
    if (before !== undefined) this.byResponse.delete(before);
    this.byResponse.set(id, c);
    this.responseOf.set(c, id);
    for (const [other, at] of this.responseOf)
      if (other.state === 'ended') {
        this.responseOf.delete(other);
        this.byResponse.delete(at);
      }
  }

  /**
   * The conversation that answered the response `previous` was replaced by a summary (docs/compaction.md "Tool
   * mode's live conversations"): its process, idle or waiting for tool results, ends now instead of holding memory and
   * a slot of the cap until its lifetime ends. A busy one is left to end its turn. True when one was ended.
   */
  release(previous: string): boolean {
    const c = this.byResponse.get(previous);
    if (!c || !c.alive || (c.state !== 'idle' && c.state !== 'waiting-for-tools')) return false;
    this.endOne(c);
    return true;
  }

  /** The live process in `state` under `key` that answered the response `previous`, if any. */
  private chained(previous: string | undefined, state: ConversationState, key: string): C | undefined {
    const c = previous === undefined ? undefined : this.byResponse.get(previous);
    return c && c.alive && c.state === state && c.key === key ? c : undefined;
  }

  /** True when an idle process started with `key` could continue `messages` (takeContinuation would give it). */
  canContinue(key: string, messages: Messages, previous?: string): boolean {
    return this.enabled && (this.chained(previous, 'idle', key) ?? this.continuing(key, messages)) !== undefined;
  }

  /**
   * An idle process started with `key` that `messages` continue by one user message (or that answered the response
   * `previous`), now busy; or undefined.
   */
  takeContinuation(key: string, messages: Messages, previous?: string): C | undefined {
    if (!this.enabled) return undefined;
    this.checkFingerprint();
    const c = this.chained(previous, 'idle', key) ?? this.continuing(key, messages);
    if (!c) return undefined;
    this.begin(c);
    this.counts.continued++;
    return c;
  }

  /**
   * `c` answered its turn, having seen `history`. True when it is kept idle until the next turn or its idle lifetime;
   * false when it must end (kept processes off or closed, another login, no room in memory).
   */
  keep(c: C, history: HistoryEntry[]): boolean {
    if (!this.enabled || !c.alive) return false;
    if (this.opts.fingerprint && c.fingerprint !== this.opts.fingerprint()) {
      this.counts.replaced++;
      return false;
    }
    this.add(c);
    // Room among the processes that hold a conversation (`c` is one already), then in memory.
    while (this.list().filter((o) => o.state !== 'warm' && o.state !== 'ended').length > this.opts.max)
      if (!this.evictOldestIdle(c)) return false;
    while (!this.roomInMemory(0)) if (!this.evictOldestIdle(c)) return false;
    c.idle(history, this.now());
    this.counts.kept++;
    this.set.restTimer(c, this.opts.idleMs, () => {
      this.counts.expired++;
      this.endOne(c);
    });
    this.startChecker();
    return true;
  }

  /**
   * The process waiting for tool results that `messages` (its history plus the results) continue, or that answered
   * the response `previous`, started with `key`.
   */
  findWaiting(key: string, messages: Messages, previous?: string): C | undefined {
    const digests = digestsOf(messages);
    return (
      this.chained(previous, 'waiting-for-tools', key) ??
      this.inState('waiting-for-tools', key).find((c) => c.alive && digests.continue(c.history))
    );
  }

  /**
   * `c` paused its turn at a client's tool calls, having seen `history` (its answer with the calls): it waits for the
   * results for `waitMs`, then ends. False when it cannot wait (shut down, or it exited).
   */
  park(c: C, history: HistoryEntry[]): boolean {
    if (this.closed || !c.alive || !this.set.has(c)) return false;
    c.wait(history, this.now());
    this.set.restTimer(c, this.opts.waitMs, () => {
      this.opts.onWaitEnded?.(c, 'expired');
      this.endOne(c);
    });
    const max = this.opts.maxWaiting;
    if (max === undefined) return true;
    // A cap on processes kept for clients that may never come back: the oldest goes first.
    const waiting = this.inState('waiting-for-tools').sort((a, b) => a.lastUsedAt - b.lastUsedAt);
    for (const oldest of waiting.slice(0, Math.max(0, waiting.length - max))) {
      this.opts.onWaitEnded?.(oldest, 'cap');
      this.endOne(oldest);
    }
    return true;
  }

  /** A request brings the results `c` waits for and reads on. */
  resume(c: C): void {
    this.set.clearTimer(c);
    c.resume(this.now());
  }

  /** `c` was taken (`continued`: as a live one) and found dead before it answered: forgotten, counted as lost. */
  lost(c: C, continued = true): void {
    if (c.state !== 'ended') c.end();
    this.set.forget(c);
    if (continued) this.counts.continued--;
    this.counts.lost++;
  }

  /** Ends warm and idle processes started under another login or settings. */
  checkFingerprint(): void {
    if (!this.opts.fingerprint) return;
    const fp = this.opts.fingerprint();
    for (const c of this.list()) {
      if (c.fingerprint === fp) continue;
      if (c.state === 'warm') this.endOne(c, 'replaced');
      else if (c.state === 'idle') {
        this.counts.replaced++;
        this.endOne(c);
      }
    }
  }

  /** True when the processes' memory leaves `extra` bytes under the cap (the warm pool asks for its largest seen). */
  roomInMemory(extra: number): boolean {
    const cap = this.opts.maxRssBytes;
    if (cap === undefined || !this.opts.rssOf) return true;
    // Those being ended free theirs in a moment: ending more would not help.
    return this.rssOf(this.list().filter((c) => c.state !== 'ended')) + extra <= cap;
  }

  /** Resident memory of `list` together, bytes (0 when the platform cannot tell); `each` gets every one measured. */
  rssOf(list: C[], each?: Map<C, number>): number {
    return this.set.rssOf(list, each);
  }

  /** Ends every process (stop and quit) and waits until they have exited. */
  async close(): Promise<void> {
    this.closed = true;
    this.set.stopChecking();
    const all = this.list();
    for (const c of all) this.endOne(c);
    await Promise.all(all.map((c) => c.exited));
  }

  /** The processes that hold a conversation (neither warm nor ended), for /health/detailed and the window. */
  snapshot(): LiveConversationsSnapshot {
    const list = this.list().filter((c) => c.state !== 'warm' && c.state !== 'ended');
    const each = new Map<C, number>();
    const rss = this.measures ? { total: this.rssOf(list, each), each } : undefined;
    return registrySnapshot(list, this.counts, { ...this.opts, enabled: this.enabled, now: this.now(), rss });
  }

  private continuing(key: string, messages: Messages): C | undefined {
    const digests = digestsOf(messages);
    return this.inState('idle', key).find((c) => c.alive && digests.continue(c.history));
  }

  private add(c: C): void {
    this.set.add(c, () => {
      if (c.endedFrom === 'warm') this.opts.onWarmEnded?.(c, 'died');
    });
  }

  private begin(c: C): void {
    this.set.clearTimer(c);
    c.begin(this.now());
  }

  private evictOldestIdle(except: C): boolean {
    const oldest = this.inState('idle')
      .filter((o) => o !== except)
      .sort((a, b) => a.lastUsedAt - b.lastUsedAt)[0];
    if (!oldest) return false;
    this.counts.evicted++;
    this.endOne(oldest);
    return true;
  }

  /** Ends `c`; it stays counted, in the state ended, until it has exited. */
  private endOne(c: C, warmEnd?: WarmEnd): void {
    this.set.clearTimer(c);
    c.end();
    if (warmEnd) this.opts.onWarmEnded?.(c, warmEnd);
  }

  private startChecker(): void {
    if (this.opts.fingerprint && !this.closed)
      this.set.startChecking(() => this.checkFingerprint(), this.opts.checkEveryMs ?? 2000);
  }
}
