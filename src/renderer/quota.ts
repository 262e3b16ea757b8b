// Subscription quota windows as the window shows them (pure, tested): how much is used, how much of the window's
// time has passed (the marker on the bar: used faster than time when the fill is past it), and when it resets.

import type { QuotaWindow } from '../proxy/control-api.js';
import { paceOf } from '../shared/pace.js';

interface QuotaView {
  key: string;
  name: string;
  source: string;
  /** 0..100, or null when the source reported the window without a figure. */
  usedPct: number | null;
  /** 0..100 of the window's time already past, or null when the window's length or reset is unknown. */
  elapsedPct: number | null;
  /** "resets in 2 h 30 min (16:05)", or "reset time not reported". */
  resetText: string;
  /** "ahead of time" when used faster than time passes. */
  pace: string;
  /** The pace projection (src/shared/pace.ts): "at this pace about 150 % by the reset: the limit at 16:20", or ''. */
  projection: string;
  tone: 'ok' | 'warn' | 'bad';
}

const names: Record<string, string> = {
  overage: 'Extra usage',
  five_hour: '5-hour window',
  seven_day: '7-day window',
  seven_day_opus: '7-day window (largest models)',
  seven_day_sonnet: '7-day window (mid-size models)',
};
const sources: Record<string, string> = { direct: 'direct mode', cli: 'CLI', respapi: 'response API' };

/** The window's length from its name (`five_hour`, `seven_day`, `2_hour`, …), in ms; undefined when unknown. */
export function windowLengthMs(window: string): number | undefined {
  const words: Record<string, number> = {
    one: 1,
    two: 2,
    three: 3,
    four: 4,
    five: 5,
    six: 6,
    seven: 7,
    eight: 8,
    twelve: 12,
    thirty: 30,
  };
  const m = /^(\d+|[a-z]+)_(hour|day|week)/.exec(window);
  if (!m) return undefined;
  const n = /^\d+$/.test(m[1]) ? Number(m[1]) : words[m[1]];
  if (!n) return undefined;
  return n * (m[2] === 'hour' ? 3_600_000 : m[2] === 'day' ? 86_400_000 : 7 * 86_400_000);
}

export function span(ms: number): string {
  const min = Math.max(0, Math.round(ms / 60_000));
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h ${min % 60} min`;
  return `${Math.floor(h / 24)} days ${h % 24} h`;
}

export function clock(ms: number, now: number): string {
  const d = new Date(ms);
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', hour12: false });
  return ms - now < 86_400_000 ? time : `${d.toLocaleDateString(undefined, { weekday: 'short' })} ${time}`;
}

export function quotaViews(windows: QuotaWindow[], now: number): QuotaView[] {
  return windows.map((w) => {
    const used = w.utilization === null ? null : Math.max(0, Math.min(100, Math.round(w.utilization * 1000) / 10));
    const length = windowLengthMs(w.window);
    const resetMs = w.resetsAt === null ? undefined : w.resetsAt * 1000;
    const elapsed =
      length !== undefined && resetMs !== undefined
        ? Math.max(0, Math.min(100, Math.round((1 - (resetMs - now) / length) * 1000) / 10))
        : null;
    const resetText =
      resetMs === undefined
        ? 'reset time not reported'
        : resetMs <= now
          ? `reset at ${clock(resetMs, now)} (not observed since)`
          : `resets in ${span(resetMs - now)} (${clock(resetMs, now)})`;
    const ahead = used !== null && elapsed !== null && used > elapsed + 5;
    const rejected = w.status === 'rejected';
    const p = paceOf(w, length === undefined ? null : length / 1000);
    const projection =
      !p || rejected
        ? ''
        : p.limitAt !== null
          ? `at this pace about ${Math.round(p.expectedAtReset * 100)} % by the reset: the limit at ${clock(p.limitAt * 1000, now)}`
          : `at this pace about ${Math.round(p.expectedAtReset * 100)} % by the reset`;
    return {
      key: `${w.source}:${w.window}`,
      name: names[w.window] ?? w.window.replace(/_/g, ' '),
      source: sources[w.source] ?? w.source,
      usedPct: used,
      elapsedPct: elapsed,
      resetText,
      pace: rejected
        ? 'limit reached: requests are refused until the reset'
        : ahead
          ? 'used faster than time passes'
          : used === null
            ? 'reported without a figure'
            : '',
      projection,
      tone: rejected || (used ?? 0) >= 95 ? 'bad' : (used ?? 0) >= 80 || ahead || p?.limitAt != null ? 'warn' : 'ok',
    };
  });
}
