import { describe, expect, it } from 'vitest';

import {
  emptyLaneAlertState,
  stepLaneAlerts,
  type LaneAlertEvent,
  type LaneAlertState,
  type LaneNotice,
} from './lane-alerts.js';
import type { Pace } from '../../shared/pace.js';

import type { QuotaWindow } from './types.js';
import { laneAlertKinds } from '../../shared/lane-alerts.js';

const all = new Set(laneAlertKinds);
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const H = 3600;

function run(events: LaneAlertEvent[], on = all): { notices: LaneNotice[]; state: LaneAlertState } {
  let state = emptyLaneAlertState();
  const notices: LaneNotice[] = [];
  for (const e of events) {
    const r = stepLaneAlerts(state, e, on, clock);
    state = r.state;
    notices.push(...r.notices);
  }
  return { notices, state };
}

const win = (over: Partial<QuotaWindow>): QuotaWindow => ({
  source: 'direct',
  window: 'five_hour',
  utilization: 0.5,
  resetsAt: 10 * H,
  status: 'allowed',
  observedAt: 7 * H * 1000,
  ...over,
});
const crossing: Pace = { expectedAtReset: 1.4, limitAt: 9 * H, perHour: 0.3 };
const under: Pace = { expectedAtReset: 0.8, limitAt: null, perHour: 0.1 };
const at = (w: QuotaWindow, pace: Pace | null, now = w.observedAt): LaneAlertEvent => ({
  kind: 'window',
  window: w,
  pace,
  now,
});

describe('stepLaneAlerts', () => {
  it('announces extra usage at the first request billed to it, again only after going back to the plan', () => {
    const r = run([
      { kind: 'request', lane: 'plan' },
      { kind: 'request', lane: 'extra_usage' },
      { kind: 'request', lane: 'extra_usage' },
      { kind: 'request', lane: null },
      { kind: 'request', lane: 'extra_usage' },
      { kind: 'request', lane: 'plan' },
      { kind: 'request', lane: 'extra_usage' },
    ]);
    expect(r.notices.map((n) => n.kind)).toEqual(['extra_usage', 'extra_usage']);
    expect(r.notices[0].logLine).toBe('quota alert: a request was billed to extra usage');
  });

  it('announces a projected crossing once, and again after the projection fell back under 100 %', () => {
    const r = run([
      at(win({}), crossing),
      at(win({ utilization: 0.55 }), crossing),
      at(win({}), under),
      at(win({ utilization: 0.7 }), crossing),
    ]);
    expect(r.notices.map((n) => n.kind)).toEqual(['projected_limit', 'projected_limit']);
    expect(r.notices[0]).toMatchObject({
      title: 'At this pace the 5-hour limit is reached at 09:00',
      window: 'five_hour',
      source: 'direct',
      logLine: 'quota alert: limit projected before reset',
    });
    expect(r.notices[0].body).toContain('about 140 % by the reset, before its reset at 10:00');
  });

  it('announces usage available again once after an exhausted window resets or is allowed again', () => {
    const exhausted = win({ utilization: 1, status: 'rejected' });
    const byReset = run([
      at(exhausted, null),
      at(exhausted, null),
      at(win({ utilization: 0.01, resetsAt: 15 * H, observedAt: 10 * H * 1000 + 5000 }), null),
    ]);
    expect(byReset.notices.map((n) => n.kind)).toEqual(['available_again']);
    expect(byReset.notices[0].logLine).toBe('quota alert: usage available again');
    const byStatus = run([
      at(exhausted, null),
      at(win({ utilization: 0.9, status: 'allowed' }), null),
      at(win({ utilization: 0.9 }), null),
    ]);
    expect(byStatus.notices.map((n) => n.kind)).toEqual(['available_again']);
  });

  it('says nothing for a kind switched off, and does not announce an old crossing when it is switched on', () => {
    const off = new Set(laneAlertKinds.filter((k) => k !== 'projected_limit'));
    let state = emptyLaneAlertState();
    state = stepLaneAlerts(state, at(win({}), crossing), off, clock).state;
    expect(stepLaneAlerts(state, at(win({ utilization: 0.6 }), crossing), all, clock).notices).toEqual([]);
    expect(run([{ kind: 'request', lane: 'extra_usage' }], new Set()).notices).toEqual([]);
  });
});
