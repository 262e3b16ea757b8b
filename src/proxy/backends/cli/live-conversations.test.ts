import { describe, expect, it } from 'vitest';
import type { NativeMessageParam } from '../../formats/native.js';
import { historyAfterTurn, type HistoryEntry } from '../../translate/conversation-history.js';
import type { ConversationState } from './cli-conversation.js';
import { LiveConversations, type LiveConversation } from './live-conversations.js';

class FakeConversation implements LiveConversation {
  static next = 1;
  readonly id = `c${FakeConversation.next++}`;
  readonly model = 'm';
  readonly startedAt = 0;
  state: ConversationState = 'idle';
  history: HistoryEntry[] = [];
  turns = 0;
  lastUsedAt = 0;
  ended = false;
  private resolveExit!: () => void;
  readonly exited = new Promise<void>((r) => (this.resolveExit = r));
  constructor(
    readonly key: string,
    public fingerprint = 'fp1',
    readonly pid?: number,
  ) {}
  get alive() {
    return !this.ended;
  }
  begin(now: number) {
    this.state = 'busy';
    this.lastUsedAt = now;
  }
  idle(history: HistoryEntry[], now: number) {
    this.history = history;
    this.turns++;
    this.state = 'idle';
    this.lastUsedAt = now;
  }
  wait(history: HistoryEntry[], now: number) {
    this.history = history;
    this.state = 'waiting-for-tools';
    this.lastUsedAt = now;
  }
  resume(now: number) {
    this.begin(now);
  }
  end() {
    this.ended = true;
    this.state = 'ended';
    this.resolveExit();
  }
}

const one: NativeMessageParam[] = [{ role: 'user', content: 'one' }];
const two: NativeMessageParam[] = [...one, { role: 'assistant', content: 'ans' }, { role: 'user', content: 'two' }];

function registry(opts: Partial<ConstructorParameters<typeof LiveConversations>[0]> = {}) {
  let t = 1000;
  const now = () => t;
  const reg = new LiveConversations<FakeConversation>({ max: 2, idleMs: 60_000, now, ...opts });
  return { reg, tick: (ms: number) => (t += ms) };
}

/** A conversation that answered `one` with `ans` and was kept. */
function kept(reg: LiveConversations<FakeConversation>, key = 'k', fp = 'fp1', pid?: number): FakeConversation {
  const c = new FakeConversation(key, fp, pid);
  reg.track(c);
  expect(reg.keep(c, historyAfterTurn(one, 'ans'))).toBe(true);
  return c;
}

describe('LiveConversations', () => {
  it('hands an idle conversation to the request that continues it, once (one request at a time)', () => {
    const { reg } = registry();
    const c = kept(reg);
    expect(reg.takeContinuation('other-key', two)).toBeUndefined();
    expect(reg.takeContinuation('k', one)).toBeUndefined();
    expect(reg.takeContinuation('k', two)).toBe(c);
    expect(c.state).toBe('busy');
    expect(reg.takeContinuation('k', two)).toBeUndefined();
    expect(reg.snapshot()).toMatchObject({ live: 1, busy: 1, continued: 1, kept: 1 });
  });

  it('forgets a conversation found dead when its turn was written, counted as lost instead of continued', () => {
    const { reg } = registry();
    const c = kept(reg);
    expect(reg.takeContinuation('k', two)).toBe(c);
    reg.lost(c);
    expect(c.ended).toBe(true);
    expect(reg.list()).toEqual([]);
    expect(reg.takeContinuation('k', two)).toBeUndefined();
    expect(reg.snapshot()).toMatchObject({ live: 0, continued: 0, kept: 1, lost: 1 });
    // One that waited for tool results was never counted as continued.
    const waiting = new FakeConversation('k');
    reg.track(waiting);
    reg.lost(waiting, false);
    expect(reg.snapshot()).toMatchObject({ live: 0, continued: 0, lost: 2 });
  });

  it('ends the least recently used idle conversation to keep one over the cap, and refuses when none is idle', () => {
    const { reg, tick } = registry({ max: 2 });
    const a = kept(reg);
    tick(10);
    const b = kept(reg);
    tick(10);
    const c = kept(reg);
    expect(a.ended).toBe(true);
    expect([b.ended, c.ended]).toEqual([false, false]);
    // Both remaining ones busy: a third cannot be kept.
    reg.takeContinuation('k', two);
    reg.takeContinuation('k', two);
    const d = new FakeConversation('k');
    reg.track(d);
    expect(reg.keep(d, historyAfterTurn(one, 'ans'))).toBe(false);
    expect(reg.snapshot().evicted).toBe(1);
  });

  it('makes room for a new process under the cap on every process: a warm one first, then the least recently used one nobody reads', () => {
    let warm = 1;
    const others = { count: () => warm, endOldest: () => (warm > 0 ? (warm--, true) : false) };
    const { reg, tick } = registry({ max: 3, others });
    const idle = kept(reg);
    tick(10);
    const waiting = new FakeConversation('t');
    reg.track(waiting);
    waiting.state = 'waiting-for-tools';
    tick(10);
    expect(reg.processCount()).toBe(3);
    expect(reg.hasRoom()).toBe(false);
    // The warm process goes first.
    expect(reg.makeRoom()).toBe(true);
    expect([warm, idle.ended, waiting.ended]).toEqual([0, false, false]);
    const busy = new FakeConversation('b');
    reg.track(busy);
    // Then the least recently used of idle and waiting: here the idle one.
    expect(reg.makeRoom()).toBe(true);
    expect([idle.ended, waiting.ended]).toEqual([true, false]);
    const busy2 = new FakeConversation('b2');
    reg.track(busy2);
    expect(reg.makeRoom()).toBe(true);
    expect(waiting.ended).toBe(true);
    const busy3 = new FakeConversation('b3');
    reg.track(busy3);
    // Only busy ones left: no room.
    expect(reg.makeRoom()).toBe(false);
    expect(reg.snapshot().evicted).toBe(2);
  });

  it('keeps nothing when off (max 0)', () => {
    const { reg } = registry({ max: 0 });
    const c = new FakeConversation('k');
    reg.track(c);
    expect(reg.keep(c, historyAfterTurn(one, 'ans'))).toBe(false);
    expect(reg.takeContinuation('k', two)).toBeUndefined();
  });

  it('ends idle conversations of another login at once, and refuses to keep a busy one started under it', () => {
    let fp = 'fp1';
    const { reg } = registry({ fingerprint: () => fp });
    const idle = kept(reg);
    const busy = new FakeConversation('k2');
    reg.track(busy);
    fp = 'fp2';
    reg.checkFingerprint();
    expect(idle.ended).toBe(true);
    expect(busy.ended).toBe(false);
    expect(reg.keep(busy, historyAfterTurn(one, 'ans'))).toBe(false);
    expect(reg.snapshot().replaced).toBe(2);
  });

  it('evicts idle ones to stay under the memory cap (with the warm pool counted)', () => {
    const rss: Record<number, number> = { 1: 100, 2: 100, 3: 100 };
    const { reg, tick } = registry({ max: 10, maxRssBytes: 200, rssOf: (pid) => rss[pid], otherRssBytes: () => 50 });
    const a = kept(reg, 'k', 'fp1', 1);
    tick(1);
    const b = kept(reg, 'k', 'fp1', 2);
    tick(1);
    expect(a.ended).toBe(true);
    expect(b.ended).toBe(false);
    expect(reg.snapshot()).toMatchObject({ live: 1, rssBytes: 100, evicted: 1 });
  });

  it('ends an idle conversation after its idle lifetime, and all of them on close', async () => {
    const { reg } = registry({ idleMs: 20 });
    const a = kept(reg);
    await new Promise((r) => setTimeout(r, 60));
    expect(a.ended).toBe(true);
    expect(reg.snapshot()).toMatchObject({ live: 0, expired: 1 });
    const b = kept(reg);
    const busy = new FakeConversation('x');
    reg.track(busy);
    await reg.close();
    expect([b.ended, busy.ended]).toEqual([true, true]);
    expect(reg.enabled).toBe(false);
  });
});
