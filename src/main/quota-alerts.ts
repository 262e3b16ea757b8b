// When to tell the user about their subscription limits (docs/desktop.md "Tray"), pure so every case is tested:
// one notification when a window passes 80 %, one at 95 %, one when a window refuses requests (status
// `rejected`); each at most once per window period (a new period starts once the old one's reset time passed). Also the tray's
// one-line summary of the windows ("5h 18 % · week 23 % · resets 16:05").

import type { QuotaWindow } from '../proxy/control-api.js';
import { defaultProfile } from '../proxy/profile.js';
import { paceOf, windowSeconds } from '../shared/pace.js';

interface Notice {
  title: string;
  body: string;
}

interface WindowMemory {
  /** resetsAt of the period the memory is about (null when not reported). */
  period: number | null;
  /** Highest threshold already announced in this period: 0, 80 or 95. */
  announced: number;
  rejected: boolean;
}

export type AlertState = Record<string, WindowMemory>;

const shortNames: Record<string, string> = {
  overage: 'extra usage',
  five_hour: '5h',
  seven_day: 'week',
  seven_day_opus: 'week (largest)',
  seven_day_sonnet: 'week (mid-size)',
};
const longNames: Record<string, string> = {
  five_hour: '5-hour',
  seven_day: '7-day',
  seven_day_opus: '7-day (largest models)',
  seven_day_sonnet: '7-day (mid-size models)',
};

export const defaultClock = (ms: number): string =>
  new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', hour12: false });

/** The newest observation of each window name (direct mode and the CLI may both report one). */
function latestByWindow(windows: QuotaWindow[]): QuotaWindow[] {
  const out = new Map<string, QuotaWindow>();
  for (const w of windows) {
    const seen = out.get(w.window);
    if (!seen || w.observedAt > seen.observedAt) out.set(w.window, w);
  }
  return [...out.values()].sort((a, b) => order(a.window) - order(b.window));
}

const order = (w: string) => (w === 'five_hour' ? 0 : w === 'seven_day' ? 1 : 2);
const pct = (u: number) => `${Math.round(u * 100)} %`;

/** "5h 18 % · week 23 % · resets 16:05", or undefined when no window has been observed. */
export function quotaLine(
  windows: QuotaWindow[],
  now: number,
  clock: (ms: number) => string = defaultClock,
): string | undefined {
  const latest = latestByWindow(windows);
  if (latest.length === 0) return undefined;
  const parts = latest.map((w) => {
    const used = `${shortNames[w.window] ?? w.window.replace(/_/g, ' ')} ${w.status === 'rejected' ? 'limit reached' : w.utilization === null ? '?' : pct(w.utilization)}`;
    // The pace projection (src/shared/pace.ts): the time the limit is reached when it comes before the reset.
    const pace = w.status === 'rejected' ? null : paceOf(w, windowSeconds(w.window, defaultProfile.quota));
    return pace?.limitAt != null ? `${used} (limit ~${clock(pace.limitAt * 1000)} at this pace)` : used;
  });
  // The reset that matters next: the 5-hour window's, else the soonest one still ahead.
  const future = latest.filter((w) => w.resetsAt !== null && w.resetsAt * 1000 > now);
  const next =
    future.find((w) => w.window === 'five_hour') ?? future.sort((a, b) => (a.resetsAt ?? 0) - (b.resetsAt ?? 0))[0];
  if (next?.resetsAt) parts.push(`resets ${clock(next.resetsAt * 1000)}`);
  return parts.join(' · ');
}

/** The notifications due for these observations, and the memory to pass next time. */
export function quotaAlerts(
  state: AlertState,
  windows: QuotaWindow[],
  clock: (ms: number) => string = defaultClock,
): { notices: Notice[]; state: AlertState } {
  const next: AlertState = { ...state };
  const notices: Notice[] = [];
  for (const w of latestByWindow(windows)) {
    const key = w.window;
    let memory = next[key];
    // Once the period's reset time has passed, a new period begins: what was announced no longer counts. (A reset
    // time that merely drifts later within a period, as rolling windows report it, is not a new period.)
    if (!memory || (memory.period !== null && w.observedAt >= memory.period * 1000))
      memory = { period: w.resetsAt, announced: 0, rejected: false };
    memory = { ...memory, period: w.resetsAt ?? memory.period };
    const name = longNames[key] ?? key.replace(/_/g, ' ');
    const reset = w.resetsAt ? ` It resets at ${clock(w.resetsAt * 1000)}.` : '';
    if (w.status === 'rejected' && !memory.rejected) {
      notices.push({
        title: `Subscription limit reached (${name} window)`,
        body: `Requests are refused until the window resets.${reset}`,
      });
      memory.rejected = true;
      memory.announced = 95;
    } else if (w.utilization !== null) {
      const level = w.utilization >= 0.95 ? 95 : w.utilization >= 0.8 ? 80 : 0;
      if (level > memory.announced) {
        notices.push({
          title: `${pct(w.utilization)} of the ${name} limit used`,
          body: `Requests will be refused when it is used up.${reset}`,
        });
        memory.announced = level;
      }
    }
    next[key] = memory;
  }
  return { notices, state: next };
}

/** Requests that ended in an error during the last hour, from a list of records with a start time and outcome. */
export function errorsInLastHour(records: Array<{ startedAt: number; failed: boolean }>, now: number): number {
  return records.filter((r) => r.failed && r.startedAt > now - 3_600_000 && r.startedAt <= now).length;
}
