// AfterAnswer: the bookkeeping of answered requests runs a moment later, in order, all of it at a settle(), at the
// end of the event loop's turn once a batch is full, and a job that throws neither stops the others nor escapes.

import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AFTER_ANSWER_MS, AfterAnswer } from './after-answer.js';

describe('AfterAnswer', () => {
  it('runs nothing while the answer is being written, then every job in the order given', async () => {
    const ran: string[] = [];
    const after = new AfterAnswer(() => undefined);
    after.later(() => ran.push('read'));
    after.later(() => ran.push('record'));
    expect(ran).toEqual([]);
    expect(after.waiting).toBe(2);
    await sleep(AFTER_ANSWER_MS + 20);
    expect(ran).toEqual(['read', 'record']);
    expect(after.waiting).toBe(0);
  });

  it('runs everything waiting at settle(), jobs that a job queued included, and does not run them twice', async () => {
    const ran: string[] = [];
    const after = new AfterAnswer(() => undefined, 50);
    after.later(() => {
      ran.push('read');
      after.later(() => ran.push('record'));
    });
    after.settle();
    expect(ran).toEqual(['read', 'record']);
    await sleep(80);
    expect(ran).toEqual(['read', 'record']);
  });

  it('reports a job that throws and still runs the ones after it', () => {
    const failures: unknown[] = [];
    const ran: string[] = [];
    const after = new AfterAnswer((err) => failures.push(err));
    after.later(() => {
      throw new Error('ledger full');
    });
    after.later(() => ran.push('next'));
    after.settle();
    expect(ran).toEqual(['next']);
    expect(failures).toHaveLength(1);
    expect((failures[0] as Error).message).toBe('ledger full');
  });

  it('batches the jobs of answers that come close together into one run', async () => {
    const runs: number[][] = [];
    let batch: number[] | undefined;
    const after = new AfterAnswer(() => undefined, 10);
    for (let i = 0; i < 3; i++) {
      after.later(() => {
        if (!batch) {
          batch = [];
          runs.push(batch);
          queueMicrotask(() => (batch = undefined));
        }
        batch.push(i);
      });
    }
    await sleep(40);
    expect(runs).toEqual([[0, 1, 2]]);
  });

  it('starts a run at the end of the turn once a batch is full, without waiting for the delay', async () => {
    const ran: number[] = [];
    const after = new AfterAnswer(() => undefined, 60_000, 3);
    after.later(() => ran.push(1));
    after.later(() => ran.push(2));
    await new Promise((r) => setImmediate(r));
    expect(ran).toEqual([]);
    after.later(() => ran.push(3));
    after.later(() => ran.push(4));
    expect(ran).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(ran).toEqual([1, 2, 3, 4]);
    expect(after.waiting).toBe(0);
  });

  it('leaves no timer behind once settled', async () => {
    const ran: string[] = [];
    const after = new AfterAnswer(() => undefined, 30, 2);
    after.later(() => ran.push('a'));
    after.later(() => ran.push('b'));
    after.settle();
    expect(ran).toEqual(['a', 'b']);
    after.later(() => ran.push('c'));
    await sleep(60);
    expect(ran).toEqual(['a', 'b', 'c']);
  });
});
