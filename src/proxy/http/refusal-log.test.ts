// RefusalLog: per source, one warn line a minute; the ones between go to debug and are counted on the next warn line.

import { describe, expect, it } from 'vitest';
import { RefusalLog } from './refusal-log.js';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('RefusalLog', () => {
  it('logs the first refusal of a source at warn and the rest of that minute at debug', () => {
    const c = clock();
    const log = new RefusalLog(c.now);
    expect(log.note('origin https://evil.test')).toEqual({ level: 'warn', refusedSinceLastWarn: 0 });
    for (let i = 0; i < 999; i++) {
      c.advance(50);
      expect(log.note('origin https://evil.test').level).toBe('debug');
    }
  });

  it('after the minute, warns again with how many went to debug meanwhile', () => {
    const c = clock();
    const log = new RefusalLog(c.now);
    log.note('a');
    for (let i = 0; i < 7; i++) log.note('a');
    c.advance(59_999);
    expect(log.note('a').level).toBe('debug');
    c.advance(1);
    expect(log.note('a')).toEqual({ level: 'warn', refusedSinceLastWarn: 8 });
    c.advance(60_000);
    expect(log.note('a')).toEqual({ level: 'warn', refusedSinceLastWarn: 0 });
  });

  it('keeps each source apart', () => {
    const c = clock();
    const log = new RefusalLog(c.now);
    expect(log.note('origin https://a.test').level).toBe('warn');
    expect(log.note('origin https://b.test').level).toBe('warn');
    expect(log.note('Host evil.test').level).toBe('warn');
    expect(log.note('origin https://a.test').level).toBe('debug');
  });

  it('holds at most maxSources sources: further new ones share one minute, and quiet ones are forgotten first', () => {
    const c = clock();
    const log = new RefusalLog(c.now, 60_000, 3);
    for (const s of ['s1', 's2', 's3']) expect(log.note(s).level).toBe('warn');
    // Full: a fourth and a fifth source share the overflow entry.
    expect(log.note('s4').level).toBe('warn');
    expect(log.note('s5').level).toBe('debug');
    expect(log.note('s6').level).toBe('debug');
    // A minute later the old sources are forgotten and a new one has its own entry again.
    c.advance(60_000);
    expect(log.note('s7')).toEqual({ level: 'warn', refusedSinceLastWarn: 0 });
    expect(log.note('s7').level).toBe('debug');
  });
});
