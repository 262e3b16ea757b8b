import { describe, expect, it } from 'vitest';
import { errorsInLastHour, quotaAlerts, quotaLine, type AlertState } from './quota-alerts.js';
import type { QuotaWindow } from '../proxy/control-api.js';

const now = Date.parse('2026-11-22T12:00:00Z');
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const w = (
  window: string,
  utilization: number | null,
  resetsInMin: number,
  status = 'allowed',
  observedAt = now,
  source: QuotaWindow['source'] = 'direct',
): QuotaWindow => ({
  source,
  window,
  utilization,
  resetsAt: Math.round((now + resetsInMin * 60_000) / 1000),
  status,
  observedAt,
});

describe('quota line', () => {
  it('"5h 18 % · week 23 % · resets 16:05" from the newest observation of each window', () => {
    const windows = [
      w('seven_day', 0.23, 3 * 1440),
      w('five_hour', 0.1, 245, 'allowed', now - 60_000, 'cli'),
      w('five_hour', 0.18, 245),
    ];
    expect(quotaLine(windows, now, clock)).toBe('5h 18 % · week 23 % · resets 16:05');
  });

  it('says when a window refuses requests, and is absent before any observation', () => {
    expect(quotaLine([w('five_hour', 1, 30, 'rejected')], now, clock)).toBe('5h limit reached · resets 12:30');
    expect(quotaLine([], now, clock)).toBeUndefined();
  });

  it('adds when the limit comes at the pace so far, when that is before the reset, and names extra usage', () => {
    // 60 % with 3 h of 5 left: 30 %/h, the limit 1 h 20 min after the observation.
    expect(quotaLine([w('five_hour', 0.6, 180), { ...w('overage', 0.04, 0), resetsAt: null }], now, clock)).toBe(
      '5h 60 % (limit ~13:20 at this pace) · extra usage 4 % · resets 15:00',
    );
  });
});

describe('quota notifications', () => {
  const run = (state: AlertState, windows: QuotaWindow[]) => quotaAlerts(state, windows, clock);

  it('once at 80 %, once at 95 %, never twice in one period', () => {
    let s: AlertState = {};
    let r = run(s, [w('five_hour', 0.5, 200)]);
    expect(r.notices).toEqual([]);
    r = run((s = r.state), [w('five_hour', 0.81, 150)]);
    expect(r.notices).toEqual([
      {
        title: '81 % of the 5-hour limit used',
        body: 'Requests will be refused when it is used up. It resets at 14:30.',
      },
    ]);
    r = run((s = r.state), [w('five_hour', 0.9, 150)]);
    expect(r.notices).toEqual([]);
    r = run((s = r.state), [w('five_hour', 0.96, 150)]);
    expect(r.notices.map((n) => n.title)).toEqual(['96 % of the 5-hour limit used']);
    r = run((s = r.state), [w('five_hour', 0.99, 150)]);
    expect(r.notices).toEqual([]);
    void s;
  });

  it('a first observation already past 95 % announces 95 % only', () => {
    expect(run({}, [w('seven_day', 0.97, 600)]).notices.map((n) => n.title)).toEqual(['97 % of the 7-day limit used']);
  });

  it('a rejection is announced once, and a new period starts the count again', () => {
    let r = run({}, [w('five_hour', 0.85, 30)]);
    expect(r.notices).toHaveLength(1);
    r = run(r.state, [w('five_hour', 1, 30, 'rejected')]);
    expect(r.notices).toEqual([
      {
        title: 'Subscription limit reached (5-hour window)',
        body: 'Requests are refused until the window resets. It resets at 12:30.',
      },
    ]);
    r = run(r.state, [w('five_hour', 1, 29, 'rejected')]);
    expect(r.notices).toEqual([]);
    // A reset time drifting later within the period is not a new period.
    r = run(r.state, [w('five_hour', 1, 32, 'rejected')]);
    expect(r.notices).toEqual([]);
    // After the reset (observed past it): low use is quiet, then 80 % again is news.
    const later = now + 40 * 60_000;
    r = run(r.state, [w('five_hour', 0.05, 300, 'allowed', later)]);
    expect(r.notices).toEqual([]);
    r = run(r.state, [w('five_hour', 0.8, 250, 'allowed', later + 60_000)]);
    expect(r.notices.map((n) => n.title)).toEqual(['80 % of the 5-hour limit used']);
  });

  it('windows are tracked separately', () => {
    const r = run({}, [w('five_hour', 0.82, 100), w('seven_day', 0.96, 5000)]);
    expect(r.notices.map((n) => n.title)).toEqual(['82 % of the 5-hour limit used', '96 % of the 7-day limit used']);
  });
});

describe('errors in the last hour', () => {
  it('counts failed requests that started within the hour', () => {
    const rows = [
      { startedAt: now - 10_000, failed: true },
      { startedAt: now - 3_500_000, failed: true },
      { startedAt: now - 3_700_000, failed: true },
      { startedAt: now - 5_000, failed: false },
    ];
    expect(errorsInLastHour(rows, now)).toBe(2);
  });
});
