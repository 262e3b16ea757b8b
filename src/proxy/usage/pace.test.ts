import { describe, expect, it } from 'vitest';
import { defaultProfile } from '../profile.js';
import { paceOf, windowSeconds } from '../../shared/pace.js';
import type { QuotaWindow } from './types.js';

const names = defaultProfile.quota;
const H = 3600;
const w = (over: Partial<QuotaWindow>): QuotaWindow => ({
  source: 'direct',
  window: 'five_hour',
  utilization: 0.4,
  resetsAt: 10 * H,
  status: 'allowed',
  observedAt: 7 * H * 1000,
  ...over,
});

describe('windowSeconds', () => {
  it('knows the windows by name, their model variants and the response API families', () => {
    expect(windowSeconds('five_hour', names)).toBe(5 * H);
    expect(windowSeconds('seven_day', names)).toBe(7 * 24 * H);
    expect(windowSeconds('seven_day_opus', names)).toBe(7 * 24 * H);
    expect(windowSeconds('codex_other.one_day', names)).toBe(24 * H);
    expect(windowSeconds('90_minute', names)).toBe(90 * 60);
    expect(windowSeconds('overage', names)).toBeNull();
    expect(windowSeconds('primary', names)).toBeNull();
  });
});

describe('paceOf', () => {
  it('projects the average rate so far to the reset, and when it reaches the limit', () => {
    // 40 % used 2 h into a 5 h window: 20 %/h, 100 % at reset; the limit is reached at 10 h... exactly at reset: not before.
    expect(paceOf(w({}), 5 * H)).toEqual({ expectedAtReset: 1, limitAt: null, perHour: 0.2 });
    // 60 % after 2 h: 30 %/h, 150 % at reset, the limit at 7 h + 40 % / 30 %/h = 8 h 20 min.
    expect(paceOf(w({ utilization: 0.6 }), 5 * H)).toEqual({
      expectedAtReset: 1.5,
      limitAt: 7 * H + 4800,
      perHour: 0.3,
    });
    // Already over: reached when observed.
    expect(paceOf(w({ utilization: 1 }), 5 * H)?.limitAt).toBe(7 * H);
  });

  it('makes no projection without a figure, a reset, a length, or enough of the window behind it', () => {
    expect(paceOf(w({ utilization: null }), 5 * H)).toBeNull();
    expect(paceOf(w({ resetsAt: null }), 5 * H)).toBeNull();
    expect(paceOf(w({}), null)).toBeNull();
    expect(paceOf(w({ observedAt: (5 * H + 60) * 1000 }), 5 * H)).toBeNull(); // 1 minute in
    expect(paceOf(w({ observedAt: 11 * H * 1000 }), 5 * H)).toBeNull(); // observed after its reset
  });
});
