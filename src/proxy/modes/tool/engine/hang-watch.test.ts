import { afterEach, describe, expect, it, vi } from 'vitest';
import { procStateOf, watchHang } from './hang-watch.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('watchHang', () => {
  it('reports a process stopped for the whole window, once; a running or sleeping one never', () => {
    vi.useFakeTimers();
    let now = 0;
    const states: Record<number, string> = { 1: 'S', 2: 'T' };
    const hung: string[] = [];
    const stopA = watchHang(1, (why) => hung.push(`1:${why}`), { stateOf: (pid) => states[pid], now: () => now });
    const stopB = watchHang(2, (why) => hung.push(`2:${why}`), { stateOf: (pid) => states[pid], now: () => now });
    for (let i = 0; i < 3; i++) {
      now += 500;
      vi.advanceTimersByTime(500);
    }
    expect(hung).toEqual([]);
    // Stopped, then continued before the window passed: the window starts again.
    states[2] = 'S';
    now += 500;
    vi.advanceTimersByTime(500);
    states[2] = 't';
    for (let i = 0; i < 6; i++) {
      now += 500;
      vi.advanceTimersByTime(500);
    }
    expect(hung).toEqual([expect.stringMatching(/^2:its process was stopped/)]);
    stopA();
    stopB();
  });

  it.skipIf(process.platform !== 'linux')(
    'reads this process as running or sleeping, and an absent one as unknown (Linux)',
    () => {
      expect(['R', 'S']).toContain(procStateOf(process.pid));
      expect(procStateOf(2 ** 22 + 12345)).toBeUndefined();
    },
  );
});
