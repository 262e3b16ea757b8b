import { describe, expect, it } from 'vitest';
import { FakeProcess } from '../../../../../test/helpers/fake-process.js';
import type { NativeMessageParam } from '../../../formats/native.js';
import { historyAfterTurn } from './conversation-history.js';
import { CliProcesses } from './processes.js';
import type { CliProcessesOptions, WarmEnd } from './registry-types.js';

const one: NativeMessageParam[] = [{ role: 'user', content: 'one' }];
const two: NativeMessageParam[] = [...one, { role: 'assistant', content: 'ans' }, { role: 'user', content: 'two' }];
const results: NativeMessageParam[] = [
  ...one,
  { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'r' }] },
];
const flush = () => new Promise<void>((r) => setImmediate(r));

function registry(opts: Partial<CliProcessesOptions<FakeProcess>> = {}) {
  let t = 1000;
  const now = () => t;
  const warmEnds: Array<[FakeProcess, WarmEnd]> = [];
  const reg = new CliProcesses<FakeProcess>({
    max: 2,
    idleMs: 60_000,
    now,
    onWarmEnded: (c, why) => warmEnds.push([c, why]),
    ...opts,
  });
  return { reg, warmEnds, tick: (ms: number) => (t += ms) };
}

/** A process that answered `one` with `ans` and was kept. */
function kept(reg: CliProcesses<FakeProcess>, key = 'k', fp = 'fp1', pid?: number): FakeProcess {
  const c = new FakeProcess(key, fp, pid);
  reg.track(c);
  expect(reg.keep(c, historyAfterTurn(one, 'ans'))).toBe(true);
  return c;
}

/** A process that answered `one` with a call of tool t1 and waits for its result. */
function waiting(reg: CliProcesses<FakeProcess>, key = 't'): FakeProcess {
  const c = new FakeProcess(key);
  reg.track(c);
  const answer = { text: '', toolUses: [{ id: 't1', name: 'f', input: {} }] };
  expect(reg.park(c, historyAfterTurn(one, answer))).toBe(true);
  return c;
}

describe('CliProcesses: conversations', () => {
  it('hands an idle process to the request that continues it, once (one request at a time)', () => {
    const { reg } = registry();
    const c = kept(reg);
    expect(reg.takeContinuation('other-key', two)).toBeUndefined();
    expect(reg.takeContinuation('k', one)).toBeUndefined();
    expect(reg.takeContinuation('k', two)).toBe(c);
    expect(c.state).toBe('busy');
    expect(reg.takeContinuation('k', two)).toBeUndefined();
    expect(reg.snapshot()).toMatchObject({ live: 1, busy: 1, continued: 1, kept: 1 });
  });

  it('forgets a process found dead when its turn was written, counted as lost instead of continued', () => {
    const { reg } = registry();
    const c = kept(reg);
    expect(reg.takeContinuation('k', two)).toBe(c);
    reg.lost(c);
    expect(c.ended).toBe(true);
    expect(reg.list()).toEqual([]);
    expect(reg.takeContinuation('k', two)).toBeUndefined();
    expect(reg.snapshot()).toMatchObject({ live: 0, continued: 0, kept: 1, lost: 1 });
    // One that waited for tool results was never counted as continued.
    const w = new FakeProcess('k');
    reg.track(w);
    reg.lost(w, false);
    expect(reg.snapshot()).toMatchObject({ live: 0, continued: 0, lost: 2 });
  });

  it('ends the least recently used idle process to keep one over the cap, and refuses when none is idle', () => {
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
    const d = new FakeProcess('k');
    reg.track(d);
    expect(reg.keep(d, historyAfterTurn(one, 'ans'))).toBe(false);
    expect(reg.snapshot().evicted).toBe(1);
  });

  it('keeps nothing when off (max 0)', () => {
    const { reg } = registry({ max: 0 });
    const c = new FakeProcess('k');
    reg.track(c);
    expect(reg.keep(c, historyAfterTurn(one, 'ans'))).toBe(false);
    expect(reg.takeContinuation('k', two)).toBeUndefined();
    expect(reg.makeRoom()).toBe(true);
  });

  it('ends idle processes of another login at once, and refuses to keep a busy one started under it', () => {
    let fp = 'fp1';
    const { reg } = registry({ fingerprint: () => fp });
    const idle = kept(reg);
    const busy = new FakeProcess('k2');
    reg.track(busy);
    fp = 'fp2';
    reg.checkFingerprint();
    expect(idle.ended).toBe(true);
    expect(busy.ended).toBe(false);
    expect(reg.keep(busy, historyAfterTurn(one, 'ans'))).toBe(false);
    expect(reg.snapshot().replaced).toBe(2);
  });

  it('evicts idle ones to stay under the memory cap, warm processes counted', () => {
    const rss: Record<number, number> = { 1: 75, 2: 75, 3: 50 };
    const { reg, tick } = registry({ max: 10, maxRssBytes: 180, rssOf: (pid) => rss[pid] });
    reg.addWarm(new FakeProcess('w', 'fp1', 3));
    const a = kept(reg, 'k', 'fp1', 1);
    tick(1);
    const b = kept(reg, 'k', 'fp1', 2);
    tick(1);
    expect(a.ended).toBe(true);
    expect(b.ended).toBe(false);
    // The snapshot of conversations leaves the warm process out.
    expect(reg.snapshot()).toMatchObject({ live: 1, rssBytes: 75, evicted: 1 });
  });

  it('ends an idle process after its idle lifetime, and all of them on close', async () => {
    const { reg } = registry({ idleMs: 20 });
    const a = kept(reg);
    await new Promise((r) => setTimeout(r, 60));
    expect(a.ended).toBe(true);
    expect(reg.snapshot()).toMatchObject({ live: 0, expired: 1 });
    const b = kept(reg);
    await reg.close();
    expect(b.ended).toBe(true);
    expect(reg.list()).toEqual([]);
  });
});

describe('CliProcesses: waiting for tool results', () => {
  it('gives results only to the process of the same key and history, which waits until resumed', () => {
    const { reg } = registry({ max: 4 });
    const w = waiting(reg);
    expect(reg.findWaiting('other', results)).toBeUndefined();
    expect(reg.findWaiting('t', two)).toBeUndefined();
    expect(reg.findWaiting('t', results)).toBe(w);
    expect(reg.snapshot()).toMatchObject({ live: 1, waitingForTools: 1 });
    reg.resume(w);
    expect(w.state).toBe('busy');
    expect(reg.findWaiting('t', results)).toBeUndefined();
  });

  it('ends a process whose client does not come back in time, and the oldest over maxWaiting', async () => {
    const ended: Array<[FakeProcess, string]> = [];
    const { reg, tick } = registry({
      max: 10,
      waitMs: 30,
      maxWaiting: 2,
      onWaitEnded: (c, why) => ended.push([c, why]),
    });
    const a = waiting(reg);
    tick(1);
    const b = waiting(reg);
    tick(1);
    waiting(reg);
    expect(ended).toEqual([[a, 'cap']]);
    expect(a.ended).toBe(true);
    await new Promise((r) => setTimeout(r, 80));
    expect(b.ended).toBe(true);
    expect(ended.map(([, why]) => why)).toEqual(['cap', 'expired', 'expired']);
  });

  it('refuses to park after shutdown', async () => {
    const { reg } = registry();
    await reg.close();
    const c = new FakeProcess('t');
    reg.track(c);
    expect(reg.park(c, [])).toBe(false);
  });
});

describe('CliProcesses: one cap on every process', () => {
  it('makes room for a new process: a warm one first, then the least recently used one nobody reads', async () => {
    const { reg, tick, warmEnds } = registry({ max: 3 });
    const warm = new FakeProcess('w');
    reg.addWarm(warm);
    const idle = kept(reg);
    tick(10);
    const w = waiting(reg);
    tick(10);
    expect(reg.list()).toHaveLength(3);
    expect(reg.hasRoom()).toBe(false);
    // The warm process goes first.
    expect(reg.makeRoom()).toBe(true);
    expect([warm.ended, idle.ended, w.ended]).toEqual([true, false, false]);
    expect(warmEnds).toEqual([[warm, 'evicted']]);
    reg.track(new FakeProcess('b'));
    // Then the least recently used of idle and waiting: here the idle one.
    expect(reg.makeRoom()).toBe(true);
    expect([idle.ended, w.ended]).toEqual([true, false]);
    reg.track(new FakeProcess('b2'));
    expect(reg.makeRoom()).toBe(true);
    expect(w.ended).toBe(true);
    reg.track(new FakeProcess('b3'));
    // Only busy ones left: no room.
    expect(reg.makeRoom()).toBe(false);
    expect(reg.snapshot().evicted).toBe(2);
    await flush();
  });

  it('starts a new process only once the one ended for it has exited, so the processes alive never exceed the cap', async () => {
    const { reg } = registry({ max: 2 });
    const idle = kept(reg);
    reg.track(new FakeProcess('busy'));
    let exitOfIdle = false;
    void idle.exited.then(() => (exitOfIdle = true));
    const started = await reg.startWithRoom(() => {
      // The idle one was ended to make room, and has exited before this one starts.
      expect(exitOfIdle).toBe(true);
      return new FakeProcess('new');
    });
    expect(started?.state).toBe('busy');
    expect(idle.ended).toBe(true);
    expect(reg.list()).toHaveLength(2);
    // Only busy ones: no room, and nothing is started.
    expect(await reg.startWithRoom(() => new FakeProcess('never'))).toBeUndefined();
  });

  it('counts a process being ended until it has exited: the warm pool finds no room meanwhile', async () => {
    const { reg } = registry({ max: 1 });
    const c = kept(reg);
    expect(reg.makeRoom()).toBe(true);
    expect(c.ended).toBe(true);
    expect(reg.hasRoom()).toBe(false);
    expect(reg.snapshot().live).toBe(0);
    await c.exited;
    await flush();
    expect(reg.hasRoom()).toBe(true);
  });

  it('keeping a process idle or parking it ends no other process', () => {
    const { reg } = registry({ max: 2 });
    const idle = kept(reg);
    const w = waiting(reg);
    expect([idle.ended, w.ended]).toEqual([false, false]);
    expect(reg.hasRoom()).toBe(false);
  });
});

describe('CliProcesses: warm processes', () => {
  it('hands the oldest warm process of a key out once, busy', () => {
    const { reg } = registry({ max: 4 });
    const a = new FakeProcess('k', 'fp1', undefined, 1);
    const b = new FakeProcess('k', 'fp1', undefined, 2);
    reg.addWarm(b);
    reg.addWarm(a);
    reg.addWarm(new FakeProcess('other'));
    expect(reg.takeWarm('k')).toBe(a);
    expect(a.state).toBe('busy');
    expect(reg.takeWarm('k')).toBe(b);
    expect(reg.takeWarm('k')).toBeUndefined();
    expect(reg.inState('warm').map((c) => c.key)).toEqual(['other']);
  });

  it('ends a warm process after its lifetime, one of another login at once, and tells why; one that died is told too', async () => {
    let fp = 'fp1';
    const { reg, warmEnds } = registry({ max: 4, warmMs: 20, fingerprint: () => fp });
    const old = new FakeProcess('a');
    reg.addWarm(old);
    await new Promise((r) => setTimeout(r, 50));
    expect(old.ended).toBe(true);
    const stale = new FakeProcess('b');
    reg.addWarm(stale);
    fp = 'fp2';
    expect(reg.takeWarm('b')).toBeUndefined();
    const crashed = new FakeProcess('c', 'fp2');
    reg.addWarm(crashed);
    crashed.die();
    await flush();
    expect(warmEnds.map(([c, why]) => [c.key, why])).toEqual([
      ['a', 'expired'],
      ['b', 'replaced'],
      ['c', 'died'],
    ]);
    expect(reg.list()).toEqual([]);
    await reg.close();
  });
});
