// AfterAnswer: the bookkeeping of answered requests runs a moment later, in order, all of it at a settle(), and a
// job that throws neither stops the others nor escapes.

import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AfterAnswer } from './after-answer.js';

describe('AfterAnswer', () => {
  it('runs nothing while the answer is being written, then every job in the order given', async () => {
    const ran: string[] = [];
    const after = new AfterAnswer(() => undefined);
    after.later(() => ran.push('read'));
    after.later(() => ran.push('record'));
    expect(ran).toEqual([]);
    expect(after.waiting).toBe(2);
    await sleep(20);
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
});
