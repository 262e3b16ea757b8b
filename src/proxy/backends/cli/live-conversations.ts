// The registry of live conversations (docs/tool-mode.md "Live conversations"): every CLI process that holds a
// conversation (cli-conversation.ts), busy or between turns. It sits beside the CLI backend, which asks it for a
// conversation a request continues and hands it back after each turn.
//
// Rules (each one is tested in live-conversations.test.ts):
// - A request continues an idle conversation only when it was started with the same key (arguments, environment,
//   system prompt) and the request's messages are its history plus one new user message
//   (translate/conversation-history.ts). One request at a time: a busy conversation is never handed out.
// - After a turn a conversation is kept idle for `idleMs`, then ended. `max` caps the conversations kept (busy ones
//   included): to keep one more, the least recently used idle one is ended; `maxRssBytes` caps their memory (with
//   the warm pool's, `otherRssBytes`) the same way.
// - A conversation started under another login or settings (`fingerprint`: the credential file's mtime and the
//   settings that reach the child) is ended: idle ones at once (checked on every request and every few seconds),
//   busy ones when their turn ends.
// - close() (stop and quit) ends every conversation and waits until the processes have exited.
// - A conversation handed out whose process turns out to have died between turns (`lost`) is forgotten and counted
//   apart: its request goes to a fresh process, so it did not continue anything.
// Ending is injected so the rules are tested without processes.

import type { NativeMessageParam } from '../../formats/native.js';
import { continuesHistory, type HistoryEntry } from '../../translate/conversation-history.js';
import type { ConversationState } from './cli-conversation.js';

/** What the registry needs of a conversation (CliConversation fits). */
export interface LiveConversation {
  readonly id: string;
  readonly key: string;
  readonly model: string;
  readonly fingerprint: string;
  readonly startedAt: number;
  readonly pid?: number;
  readonly state: ConversationState;
  readonly history: HistoryEntry[];
  readonly turns: number;
  readonly lastUsedAt: number;
  readonly alive: boolean;
  readonly exited: Promise<void>;
  begin(now: number): void;
  idle(history: HistoryEntry[], now: number): void;
  wait(history: HistoryEntry[], now: number): void;
  resume(now: number): void;
  end(): void;
}

export interface LiveConversationsOptions {
  /** Conversations kept at most (config.cliLiveMax); 0 = off. */
  max: number;
  /** How long an idle conversation waits for its next turn (config.cliLiveIdleMs). */
  idleMs: number;
  /** Memory cap of live processes (and the warm pool's, `otherRssBytes`) together, bytes. */
  maxRssBytes?: number;
  rssOf?: (pid: number) => number | undefined;
  otherRssBytes?: () => number;
  fingerprint?: () => string;
  now?: () => number;
  /**
   * The warm pool's processes, which count against `max` too: how many there are, and ending the oldest (true when
   * one was ended).
   */
  others?: { count(): number; endOldest(): boolean };
  /** How often idle conversations are checked for a changed login. */
  checkEveryMs?: number;
  /** How long a conversation waits for a client's tool results (config.cliToolResultTimeoutMs). */
  waitMs?: number;
  /** Conversations waiting for tool results at most (config.cliMaxConcurrent): the oldest ends. */
  maxWaiting?: number;
  /** A waiting conversation ended: its client did not come back in time, or too many waited. */
  onWaitEnded?: (c: LiveConversation, why: 'expired' | 'cap') => void;
}

export interface LiveConversationsSnapshot {
  enabled: boolean;
  max: number;
  idleMs: number;
  maxRssBytes?: number;
  live: number;
  busy: number;
  idle: number;
  waitingForTools: number;
  rssBytes?: number;
  /** Turns that continued a live process (only the new turn was written to it). */
  continued: number;
  /** Conversations kept after a turn. */
  kept: number;
  expired: number;
  /** Ended to make room (the cap on conversations or on memory). */
  evicted: number;
  /** Ended because the login or the settings changed. */
  replaced: number;
  /**
   * Follow-ups (a new user turn, or tool results) whose process had died between turns before it answered: answered
   * by a fresh process with the whole conversation.
   */
  lost: number;
  conversations: Array<{
    id: string;
    model: string;
    state: ConversationState;
    turns: number;
    ageMs: number;
    idleMs: number;
    rssBytes?: number;
  }>;
}

export class LiveConversations<C extends LiveConversation> {
  private readonly all = new Set<C>();
  private readonly timers = new Map<C, ReturnType<typeof setTimeout>>();
  private readonly counts = { continued: 0, kept: 0, expired: 0, evicted: 0, replaced: 0, lost: 0 };
  private checker: ReturnType<typeof setInterval> | undefined;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly opts: LiveConversationsOptions) {
    this.now = opts.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.opts.max > 0 && !this.closed;
  }

  /** Every conversation alive, in any state. */
  list(): C[] {
    return [...this.all];
  }

  get(id: string): C | undefined {
    for (const c of this.all) if (c.id === id) return c;
    return undefined;
  }

  /** True when an idle conversation started with `key` could continue `messages` (takeContinuation would give it). */
  canContinue(key: string, messages: NativeMessageParam[]): boolean {
    if (!this.enabled) return false;
    for (const c of this.all)
      if (c.state === 'idle' && c.key === key && c.alive && continuesHistory(c.history, messages)) return true;
    return false;
  }

  /**
   * An idle conversation started with `key` whose history `messages` continue by one user message, marked busy for
   * the caller; or undefined (the caller starts a fresh process).
   */
  takeContinuation(key: string, messages: NativeMessageParam[]): C | undefined {
    if (!this.enabled) return undefined;
    this.checkFingerprint();
    for (const c of this.all) {
      if (c.state !== 'idle' || c.key !== key || !c.alive || !continuesHistory(c.history, messages)) continue;
      this.clearTimer(c);
      c.begin(this.now());
      this.counts.continued++;
      return c;
    }
    return undefined;
  }

  /**
   * The conversation waiting for a client's tool results that `messages` (the same history plus one user message
   * with the results) continue, started with `key`; it stays waiting until `resume`.
   */
  findWaiting(key: string, messages: NativeMessageParam[]): C | undefined {
    for (const c of this.all)
      if (c.state === 'waiting-for-tools' && c.key === key && c.alive && continuesHistory(c.history, messages))
        return c;
    return undefined;
  }

  /** Conversations waiting for tool results right now. */
  waitingCount(): number {
    return [...this.all].filter((c) => c.state === 'waiting-for-tools').length;
  }

  /**
   * `c` paused its turn at a client's tool calls, having seen `history` (its answer with the calls included): it waits
   * for the results for `waitMs`, then ends. At most `maxWaiting` wait; the oldest ends. False when it cannot wait
   * (closed, or it exited).
   */
  park(c: C, history: HistoryEntry[]): boolean {
    if (this.closed || !c.alive) return false;
    this.clearTimer(c);
    c.wait(history, this.now());
    this.all.add(c);
    if (this.opts.waitMs !== undefined) {
      const timer = setTimeout(() => {
        if (c.state !== 'waiting-for-tools') return;
        this.opts.onWaitEnded?.(c, 'expired');
        this.endOne(c);
      }, this.opts.waitMs);
      timer.unref?.();
      this.timers.set(c, timer);
    }
    const max = this.opts.maxWaiting;
    if (max !== undefined) {
      // A cap on processes kept for clients that may never come back: the oldest goes first.
      const waiting = [...this.all]
        .filter((o) => o.state === 'waiting-for-tools')
        .sort((a, b) => a.lastUsedAt - b.lastUsedAt);
      for (const oldest of waiting.slice(0, Math.max(0, waiting.length - max))) {
        this.opts.onWaitEnded?.(oldest, 'cap');
        this.endOne(oldest);
      }
    }
    return true;
  }

  /** A request brings the results `c` waits for and reads on. */
  resume(c: C): void {
    this.clearTimer(c);
    c.resume(this.now());
  }

  /** Every CLI process this registry counts: its conversations in any state, and the warm pool's. */
  processCount(): number {
    return this.all.size + (this.opts.others?.count() ?? 0);
  }

  /** True when one more process may start without ending another (the warm pool asks before it starts one). */
  hasRoom(): boolean {
    return this.opts.max <= 0 || this.processCount() < this.opts.max;
  }

  /**
   * Makes room for one more process under `max`, which bounds every CLI process of the proxy: warm, busy, idle and
   * waiting for tools (docs/tool-mode.md "Caps"). A warm process goes first (it holds no conversation), then the
   * least recently used conversation that nobody is reading: idle, or waiting for a client's tool results. A busy one
   * is never ended (busy ones are at most the child slots, which are at most `max`). False when nothing could go.
   * With live conversations off (`max` 0) there is no such cap: processes are the busy ones, the waiting ones (at
   * most CLI_MAX_CONCURRENT) and the warm pool's.
   */
  makeRoom(): boolean {
    if (this.opts.max <= 0) return true;
    this.checkFingerprint();
    while (this.processCount() >= this.opts.max) {
      if (this.opts.others?.endOldest()) continue;
      const victim = [...this.all]
        .filter((o) => o.state === 'idle' || o.state === 'waiting-for-tools')
        .sort((a, b) => a.lastUsedAt - b.lastUsedAt)[0];
      if (!victim) return false;
      this.counts.evicted++;
      this.endOne(victim);
    }
    return true;
  }

  /**
   * `c` died between turns: a request took it (`continued`: handed out by takeContinuation; otherwise it waited for
   * a client's tool results) and found it dead before it answered; the request falls back to a fresh process. It is
   * forgotten, and counted as lost instead of continued.
   */
  lost(c: C, continued = true): void {
    if (c.state !== 'ended') c.end();
    this.forget(c);
    if (continued) this.counts.continued--;
    this.counts.lost++;
  }

  /** A request is reading a turn of `c` (a fresh process, or a warm one from the pool): it is registered. */
  track(c: C): void {
    this.clearTimer(c);
    c.begin(this.now());
    this.all.add(c);
    void c.exited.then(() => this.forget(c));
  }

  /**
   * `c` answered its turn and `history` is what it has seen. Returns true when it is kept (idle until the next turn or
   * its idle lifetime); false when it must end (live conversations off or closed, another login, no room).
   */
  keep(c: C, history: HistoryEntry[]): boolean {
    if (!this.enabled || !c.alive) return false;
    if (this.opts.fingerprint && c.fingerprint !== this.opts.fingerprint()) {
      this.counts.replaced++;
      return false;
    }
    // Room among the kept conversations: `c` itself is one of them already.
    const others = [...this.all].filter((o) => o !== c && o.alive);
    let over = others.length + 1 - this.opts.max;
    while (over > 0) {
      if (!this.evictOldestIdle(c)) return false;
      over--;
    }
    while (!this.roomInMemory()) {
      if (!this.evictOldestIdle(c)) return false;
    }
    c.idle(history, this.now());
    this.all.add(c);
    this.counts.kept++;
    const timer = setTimeout(() => {
      if (c.state !== 'idle') return;
      this.counts.expired++;
      this.endOne(c);
    }, this.opts.idleMs);
    timer.unref?.();
    this.timers.set(c, timer);
    this.startChecker();
    return true;
  }

  /** Ends idle conversations started under another login or settings. */
  checkFingerprint(): void {
    if (!this.opts.fingerprint) return;
    const fp = this.opts.fingerprint();
    for (const c of this.all) {
      if (c.state === 'idle' && c.fingerprint !== fp) {
        this.counts.replaced++;
        this.endOne(c);
      }
    }
  }

  /** Ends every conversation (stop and quit) and waits until they have exited. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.checker) clearInterval(this.checker);
    const all = [...this.all];
    for (const c of all) this.endOne(c);
    await Promise.all(all.map((c) => c.exited));
  }

  snapshot(): LiveConversationsSnapshot {
    const now = this.now();
    const list = [...this.all];
    const rss = this.rssOfEach(list);
    const total = rss === undefined ? undefined : [...rss.values()].reduce((a, b) => a + b, 0);
    return {
      enabled: this.enabled,
      max: this.opts.max,
      idleMs: this.opts.idleMs,
      ...(this.opts.maxRssBytes === undefined ? {} : { maxRssBytes: this.opts.maxRssBytes }),
      live: list.length,
      busy: list.filter((c) => c.state === 'busy').length,
      idle: list.filter((c) => c.state === 'idle').length,
      waitingForTools: list.filter((c) => c.state === 'waiting-for-tools').length,
      ...(total === undefined ? {} : { rssBytes: total }),
      ...this.counts,
      conversations: list.map((c) => ({
        id: c.id,
        model: c.model,
        state: c.state,
        turns: c.turns,
        ageMs: now - c.startedAt,
        idleMs: c.state === 'idle' ? now - c.lastUsedAt : 0,
        ...(rss?.get(c) === undefined ? {} : { rssBytes: rss.get(c) }),
      })),
    };
  }

  private evictOldestIdle(except: C): boolean {
    const oldest = [...this.all]
      .filter((o) => o !== except && o.state === 'idle')
      .sort((a, b) => a.lastUsedAt - b.lastUsedAt)[0];
    if (!oldest) return false;
    this.counts.evicted++;
    this.endOne(oldest);
    return true;
  }

  private roomInMemory(): boolean {
    const cap = this.opts.maxRssBytes;
    if (cap === undefined) return true;
    const rss = this.rssOfEach([...this.all]);
    if (rss === undefined) return true;
    const used = [...rss.values()].reduce((a, b) => a + b, 0) + (this.opts.otherRssBytes?.() ?? 0);
    return used <= cap;
  }

  private rssOfEach(list: C[]): Map<C, number> | undefined {
    if (!this.opts.rssOf) return undefined;
    const out = new Map<C, number>();
    for (const c of list) {
      const rss = c.pid === undefined ? undefined : this.opts.rssOf(c.pid);
      if (rss !== undefined) out.set(c, rss);
    }
    return out;
  }

  private endOne(c: C): void {
    this.clearTimer(c);
    this.all.delete(c);
    c.end();
  }

  private forget(c: C): void {
    this.clearTimer(c);
    this.all.delete(c);
    if (this.all.size === 0 && this.checker) {
      clearInterval(this.checker);
      this.checker = undefined;
    }
  }

  private clearTimer(c: C): void {
    const t = this.timers.get(c);
    if (t) clearTimeout(t);
    this.timers.delete(c);
  }

  private startChecker(): void {
    if (this.checker || !this.opts.fingerprint) return;
    this.checker = setInterval(() => this.checkFingerprint(), this.opts.checkEveryMs ?? 2000);
    this.checker.unref?.();
  }
}
