import { describe, expect, it } from 'vitest';
import { quotaViews, windowLengthMs } from './quota.js';

const now = Date.parse('2026-11-22T12:00:00Z');

describe('quota views', () => {
  it('knows the length of the usual windows', () => {
    expect(windowLengthMs('five_hour')).toBe(5 * 3_600_000);
    expect(windowLengthMs('seven_day')).toBe(7 * 86_400_000);
    expect(windowLengthMs('seven_day_opus')).toBe(7 * 86_400_000);
    expect(windowLengthMs('2_hour')).toBe(2 * 3_600_000);
    expect(windowLengthMs('overage')).toBeUndefined();
  });

  it('used share, elapsed share of the window and the reset countdown', () => {
    // 5-hour window resetting in 2.5 h: half of it has passed; 18 % used is behind time.
    const [v] = quotaViews(
      [
        {
          source: 'direct',
          window: 'five_hour',
          utilization: 0.18,
          resetsAt: (now + 2.5 * 3_600_000) / 1000,
          status: 'allowed',
          observedAt: now,
        },
      ],
      now,
    );
    expect(v).toMatchObject({
      name: '5-hour window',
      source: 'direct mode',
      usedPct: 18,
      elapsedPct: 50,
      pace: '',
      tone: 'ok',
    });
    expect(v.resetText).toMatch(/^resets in 2 h 30 min \(\d\d:\d\d\)$/);
  });

  it('flags use faster than time, 80 % and a rejection', () => {
    const w = (utilization: number, status = 'allowed') => ({
      source: 'cli' as const,
      window: 'seven_day',
      utilization,
      resetsAt: (now + 6 * 86_400_000) / 1000,
      status,
      observedAt: now,
    });
    const [fast, high, refused] = quotaViews([w(0.4), w(0.85), w(1, 'rejected')], now);
    expect(fast).toMatchObject({ elapsedPct: 14.3, pace: 'used faster than time passes', tone: 'warn' });
    expect(high.tone).toBe('warn');
    expect(refused).toMatchObject({ tone: 'bad', pace: 'limit reached: requests are refused until the reset' });
  });

  it('a window reported without figures', () => {
    const [v] = quotaViews(
      [{ source: 'respapi', window: 'overage', utilization: null, resetsAt: null, status: null, observedAt: now }],
      now,
    );
    expect(v).toMatchObject({
      usedPct: null,
      elapsedPct: null,
      resetText: 'reset time not reported',
      pace: 'reported without a figure',
      name: 'Extra usage',
      projection: '',
    });
  });

  it('projects the pace to the reset and says when the limit comes first', () => {
    // 60 % two hours into a 5-hour window: 30 % an hour, 150 % by the reset, the limit 1 h 20 min after now.
    const [v] = quotaViews(
      [
        {
          source: 'direct',
          window: 'five_hour',
          utilization: 0.6,
          resetsAt: (now + 3 * 3_600_000) / 1000,
          status: 'allowed',
          observedAt: now,
        },
      ],
      now,
    );
    expect(v.projection).toMatch(/^at this pace about 150 % by the reset: the limit at \d\d:\d\d$/);
    expect(v.tone).toBe('warn');
    const [calm] = quotaViews(
      [
        {
          source: 'direct',
          window: 'five_hour',
          utilization: 0.2,
          resetsAt: (now + 3 * 3_600_000) / 1000,
          status: 'allowed',
          observedAt: now,
        },
      ],
      now,
    );
    expect(calm.projection).toBe('at this pace about 50 % by the reset');
  });
});
