import { describe, expect, it } from 'vitest';
import { ProxyError } from '../../../errors.js';
import { ChildSlots } from './child-slots.js';

const never = new AbortController().signal;

describe('ChildSlots', () => {
  it('grants up to max slots, queues up to queueSize, then refuses with a 429 and Retry-After', async () => {
    const slots = new ChildSlots(1, 1);
    const first = await slots.acquire(never);
    const second = slots.acquire(never);
    await expect(slots.acquire(never)).rejects.toMatchObject({ kind: 'rate_limit', status: 429, retryAfter: 5 });
    expect(slots.counts()).toEqual({ running: 1, waiting: 1, max: 1, queueSize: 1 });
    first();
    const release = await second;
    expect(slots.counts()).toEqual({ running: 1, waiting: 0, max: 1, queueSize: 1 });
    release();
    release(); // a second call is harmless
    expect(slots.counts().running).toBe(0);
  });

  it('serves waiters first in, first out', async () => {
    const slots = new ChildSlots(1, 5);
    const first = await slots.acquire(never);
    const order: number[] = [];
    const a = slots.acquire(never).then((r) => (order.push(1), r));
    const b = slots.acquire(never).then((r) => (order.push(2), r));
    first();
    (await a)();
    (await b)();
    expect(order).toEqual([1, 2]);
  });

  it('drops a waiter whose signal aborts, with the signal reason', async () => {
    const slots = new ChildSlots(1, 1);
    await slots.acquire(never);
    const abort = new AbortController();
    const waiting = slots.acquire(abort.signal);
    abort.abort(new ProxyError('timeout', 'deadline'));
    await expect(waiting).rejects.toMatchObject({ kind: 'timeout' });
    expect(slots.counts().waiting).toBe(0);
  });

  it('refuses waiting and new requests after close', async () => {
    const slots = new ChildSlots(1, 1);
    await slots.acquire(never);
    const waiting = slots.acquire(never);
    slots.close();
    await expect(waiting).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(slots.acquire(never)).rejects.toMatchObject({ kind: 'unavailable' });
  });
});
